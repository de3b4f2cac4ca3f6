/**
 * A small raw MCP Streamable HTTP client for `doctor`: what each protocol
 * revision does on the wire, without the SDK (which negotiates one revision
 * only). Legacy revisions (2024-11-05 … 2025-11-25) open an `initialize`
 * session; 2026-07-28 sends its per-request `_meta` envelope and headers.
 * The bridge it talks to is the operator's, but its answers are still read
 * with bounds: a size cap, a deadline, and shape checks before use.
 */
import { isPlainObject, type JsonObject } from '../../core/json.js';
import { profileFor, type McpRevision } from '../../core/mcp-versions.js';

/** Deadline of one HTTP exchange with the bridge. */
export const PROBE_TIMEOUT_MS = 30_000;
/** Largest response body read. */
const MAX_BODY_BYTES = 16 * 1024 * 1024;
/** tools/list pages followed before giving up (a cursor loop is a failure, not a hang). */
const MAX_PAGES = 1000;

const CLIENT_INFO = { name: 'mcp-oxp-bridge-doctor', version: '1.0.0' };

/** A failed step, in words for the operator: what happened and what to do. */
export class ProbeError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'ProbeError';
  }
}

export interface ProbeOptions {
  url: string;
  token?: string;
}

interface Reply {
  status: number;
  headers: Headers;
  messages: JsonObject[];
}

function parseMessages(text: string, contentType: string): JsonObject[] {
  if (text.trim() === '') return [];
  const chunks = contentType.includes('text/event-stream')
    ? text
        .split(/\r?\n\r?\n/)
        .map((event) =>
          event
            .split(/\r?\n/)
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).replace(/^ /, ''))
            .join('\n'),
        )
        .filter((d) => d.trim() !== '')
    : [text];
  const out: JsonObject[] = [];
  for (const chunk of chunks) {
    const parsed: unknown = JSON.parse(chunk);
    for (const m of Array.isArray(parsed) ? parsed : [parsed]) if (isPlainObject(m)) out.push(m as JsonObject);
  }
  return out;
}

async function readBounded(res: Response): Promise<string> {
  if (!res.body) return '';
  // undici types a body as ReadableStream<any>; a fetch body's chunks are bytes.
  const reader = res.body.getReader() as ReadableStreamDefaultReader<Uint8Array>;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      throw new ProbeError(`the answer is larger than ${MAX_BODY_BYTES} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Why an HTTP status failed, and what the operator can do about it (`sentToken`: whether a bearer token went with it). */
function statusProblem(status: number, body: string, sentToken: boolean): ProbeError {
  const detail = body.trim().slice(0, 200);
  if (status === 401 && sentToken)
    return new ProbeError(
      '401 Unauthorized: the bridge refused the token (it is none of its tokens, or an OAuth access token it could not verify: expired, another issuer or audience)',
      "check the value of --token (or MCP_DOCTOR_TOKEN) against the bridge's auth.tokens, or get a fresh access token from its issuer",
    );
  if (status === 401)
    return new ProbeError(
      '401 Unauthorized: the bridge requires a bearer token and none was sent',
      'pass --token (or MCP_DOCTOR_TOKEN) with one of its auth.tokens, or an OAuth access token',
    );
  if (status === 403)
    return new ProbeError(
      `403 Forbidden${detail ? `: ${detail}` : ''}`,
      "check the bridge's http.allowedHosts (the URL's host name must be accepted) and the token's scopes",
    );
  if (status === 404) return new ProbeError('404 Not Found', 'the MCP endpoint is /mcp, e.g. http://127.0.0.1:8080/mcp');
  if (status === 406) return new ProbeError('406 Not Acceptable', 'a client must accept both application/json and text/event-stream');
  return new ProbeError(`HTTP ${status}${detail ? `: ${detail}` : ''}`);
}

export async function post(options: ProbeOptions, body: JsonObject, headers: Record<string, string> = {}): Promise<Reply> {
  let res: Response;
  try {
    res = await fetch(options.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...headers,
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
  } catch (error) {
    throw unreachable(options.url, error);
  }
  const text = await readBounded(res);
  if (res.status >= 400) throw statusProblem(res.status, text, Boolean(options.token));
  let messages: JsonObject[];
  try {
    messages = parseMessages(text, res.headers.get('content-type') ?? '');
  } catch {
    throw new ProbeError(`the answer to ${String(body.method)} is not JSON or an SSE stream of JSON`);
  }
  return { status: res.status, headers: res.headers, messages };
}

/** A network failure in words: the cause's code (ECONNREFUSED, …) when there is one. */
export function unreachable(url: string, error: unknown): ProbeError {
  const e = error as { name?: string; cause?: { code?: string; message?: string }; message?: string };
  if (e?.name === 'TimeoutError')
    return new ProbeError(`${url}: no answer within ${PROBE_TIMEOUT_MS / 1000} s`, 'is the bridge overloaded or stuck? check its logs');
  const cause = e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(error);
  return new ProbeError(`cannot reach ${url}: ${cause}`, 'is the bridge running, and is this its host and port? (it logs "listening" with its URL at start)');
}

let nextId = 1;

/** The JSON-RPC result answering `id`, or a ProbeError naming the JSON-RPC error. */
function resultOf(reply: Reply, id: number, method: string): JsonObject {
  const answer = reply.messages.find((m) => m.id === id);
  if (!answer) throw new ProbeError(`no answer to ${method} in the response`);
  if (isPlainObject(answer.error)) {
    const err = answer.error as { code?: unknown; message?: unknown };
    throw new ProbeError(`${method} failed: ${String(err.message)} (JSON-RPC error ${String(err.code)})`);
  }
  if (!isPlainObject(answer.result)) throw new ProbeError(`${method}: the answer has no result object`);
  return answer.result;
}

/** One revision's view of the bridge: how it talks, and what it lists and calls. */
export interface RevisionSession {
  revision: McpRevision;
  request(method: string, params: JsonObject, name?: string): Promise<JsonObject>;
  close(): Promise<void>;
}

/** Opens a session as `revision` sees it: `initialize` for legacy revisions, nothing to open for modern ones (2026-07-28 on). */
export async function openSession(options: ProbeOptions, revision: McpRevision): Promise<RevisionSession> {
  const profile = profileFor(revision);
  if (profile.era === 'modern') {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': revision,
      'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    return {
      revision,
      async request(method, params, name) {
        const id = nextId++;
        const headers = { 'mcp-protocol-version': revision, 'mcp-method': method, ...(name !== undefined ? { 'mcp-name': name } : {}) };
        const reply = await post(options, { jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } }, headers);
        return resultOf(reply, id, method);
      },
      close: async () => undefined,
    };
  }
  const id = nextId++;
  const init = await post(options, {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: revision, capabilities: {}, clientInfo: CLIENT_INFO },
  });
  const result = resultOf(init, id, 'initialize');
  if (result.protocolVersion !== revision)
    throw new ProbeError(`initialize as ${revision}: the bridge answered with protocol version ${JSON.stringify(result.protocolVersion)}`);
  const sessionId = init.headers.get('mcp-session-id') ?? undefined;
  // The protocol version header exists from 2025-06-18 on; earlier revisions never send it.
  const headers: Record<string, string> = {
    ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
    ...(profile.has.protocolVersionHeader ? { 'mcp-protocol-version': revision } : {}),
  };
  await post(options, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  return {
    revision,
    async request(method, params) {
      const rid = nextId++;
      return resultOf(await post(options, { jsonrpc: '2.0', id: rid, method, params }, headers), rid, method);
    },
    async close() {
      if (!sessionId) return;
      await fetch(options.url, {
        method: 'DELETE',
        headers: { ...headers, ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) },
        signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
      })
        .then((r) => r.body?.cancel())
        .catch(() => undefined);
    },
  };
}

/** Every page of tools/list: the tool names, in order. */
export async function listToolNames(session: RevisionSession): Promise<string[]> {
  const names: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await session.request('tools/list', cursor === undefined ? {} : { cursor });
    if (!Array.isArray(result.tools)) throw new ProbeError('tools/list: the result has no tools array');
    for (const tool of result.tools) names.push(isPlainObject(tool) && typeof tool.name === 'string' ? tool.name : '(unnamed)');
    if (typeof result.nextCursor !== 'string' || result.nextCursor === '') return names;
    cursor = result.nextCursor;
  }
  throw new ProbeError(`tools/list: still paginating after ${MAX_PAGES} pages`);
}
