/**
 * The HTTP fast path for the two hot methods, `tools/call` and `tools/list`.
 *
 * The SDK's per-request pipeline (a web `Request` built from the Node
 * request, era classification, a fresh `Server` and transport per request,
 * zod validation, a web `Response` streamed back) costs several times what
 * the bridge's own work does. For the requests whose answer is certain, this
 * module answers directly on node:http, and everything else — every other
 * method, every malformed or unusual request, every case whose answer
 * involves a stream (progress, authorization challenges) — goes to the SDK
 * untouched. The rule that keeps the two paths equivalent: the fast path
 * takes a request only when it has checked everything the SDK would check on
 * the way to calling the handler (Host/Origin, authentication and admission
 * are the front's gate, which every request passes before either path sees
 * it), and the request validates against the
 * official schema of its revision (validators precompiled from
 * test/schemas, see scripts/request-validators.ts); it then answers with the
 * bytes the SDK would produce (the 2026-07-28 encode contract: `resultType`,
 * cache fields, `io.modelcontextprotocol/serverInfo`; the 2025-era stateless
 * SSE framing with its headers and keep-alive comments). The integration and
 * conformance suites run against both paths (`http.fastPath` on and off), and
 * test/integration/fast-path.test.ts compares their answers request by request.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Bridge, Reply } from '../bridge/bridge.js';
import type { HeaderReader } from '../bridge/requirement-values.js';
import { isPlainObject } from '../core/json.js';
import { pickTraceparent } from '../core/trace.js';
import { effectiveVersion, HEADERLESS_LEGACY_VERSION, MODERN_VERSION, type McpVersion } from '../core/mcp-versions.js';
import type { McpErrorReply } from '../core/mcp-wire.js';
import type { Logger } from '../log.js';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  isJsonContentType,
  isSupportedLegacyVersion,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  TRACEPARENT_META_KEY,
  TRACESTATE_META_KEY,
  URL_ELICITATION_HEADER,
} from './mcp-sdk.js';
import type { SessionCodec } from './session.js';
import type { Principal } from './inbound-auth.js';
import type { CallCancellations } from './cancellations.js';

type Validators = Record<string, { tools_call: (data: unknown) => boolean; tools_list: (data: unknown) => boolean }>;

export interface FastPathOptions {
  bridge: Bridge;
  serverInfo: { name: string; version: string };
  sessions: SessionCodec;
  /** SSE keep-alive comment interval of the 2025-era stream (0 = off), as the SDK's. */
  keepAliveMs: number;
  log: Logger;
  /** Where 2025-era `notifications/cancelled` find the calls they cancel. */
  cancellations?: CallCancellations;
}

export interface FastPathStats {
  /** Requests the fast path answered. */
  served: number;
  /** POSTs it left to the SDK. */
  declined: number;
}

export interface FastPath {
  /**
   * Answers `req` (a POST to the MCP endpoint whose body was read and parsed
   * into `body`) and returns true, or returns false having touched nothing:
   * the caller then hands the request to the SDK.
   */
  tryServe(req: IncomingMessage, res: ServerResponse, body: unknown, principal?: Principal): boolean;
  readonly stats: FastPathStats;
}

/** The keys a fast-path request may carry; anything else (tasks, progress, input responses…) is the SDK's. */
const CALL_PARAMS = new Set(['name', 'arguments', '_meta']);
const LIST_PARAMS = new Set(['cursor', '_meta']);
const MODERN_META = new Set([PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY, TRACEPARENT_META_KEY, TRACESTATE_META_KEY]);
const LEGACY_META = new Set([TRACEPARENT_META_KEY, TRACESTATE_META_KEY]);
/** MCP names the bridge mints: plain in an `Mcp-Name` header (no Base64 sentinel to decode). */
const PLAIN_NAME = /^[A-Za-z0-9_-]{1,64}$/;

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' };
const JSON_HEADERS = { 'content-type': 'application/json' };

interface Eligible {
  method: 'tools/call' | 'tools/list';
  id: string | number;
  params: Record<string, unknown>;
  meta: Record<string, unknown> | undefined;
  version: McpVersion;
  modern: boolean;
}

export function createFastPath(options: FastPathOptions): FastPath {
  const stats: FastPathStats = { served: 0, declined: 0 };
  let validators: Validators | undefined;
  // ~170 KB of generated code: loaded off the start-up path; until it is in, every request takes the SDK path.
  import('./generated/request-validators.js').then(
    (m) => (validators = m.requestValidators as Validators),
    (error: unknown) => options.log.warn({ err: String(error) }, 'fast path unavailable: request validators did not load'),
  );

  function eligible(h: IncomingHttpHeaders, body: unknown): Eligible | undefined {
    if (!validators || !isPlainObject(body)) return undefined;
    const method = body.method;
    if (method !== 'tools/call' && method !== 'tools/list') return undefined;
    const id = body.id;
    // The SDK's id schema takes strings and safe integers only (zod's int()).
    if (typeof id !== 'string' && !(typeof id === 'number' && Number.isSafeInteger(id))) return undefined;
    if (!isJsonContentType(h['content-type'] ?? null) || h[URL_ELICITATION_HEADER] !== undefined) return undefined;
    const params = body.params === undefined && method === 'tools/list' ? {} : body.params;
    if (!isPlainObject(params) || !onlyKeys(params, method === 'tools/call' ? CALL_PARAMS : LIST_PARAMS)) return undefined;
    const meta = params._meta;
    if (meta !== undefined && !isPlainObject(meta)) return undefined;
    const headerVersion = header(h, 'mcp-protocol-version');

    if (meta !== undefined && PROTOCOL_VERSION_META_KEY in meta) {
      // 2026-07-28: the envelope, the standard headers and the body agree, exactly.
      if (meta[PROTOCOL_VERSION_META_KEY] !== MODERN_VERSION || headerVersion !== MODERN_VERSION || header(h, 'mcp-method') !== method) return undefined;
      if (method === 'tools/call' && (typeof params.name !== 'string' || !PLAIN_NAME.test(params.name) || header(h, 'mcp-name') !== params.name)) return undefined;
      if (!onlyKeys(meta, MODERN_META)) return undefined;
      // A client that can take a URL elicitation may get an input_required round: the SDK's.
      const capabilities = meta[CLIENT_CAPABILITIES_META_KEY];
      if (isPlainObject(capabilities) && isPlainObject(capabilities.elicitation) && capabilities.elicitation.url !== undefined) return undefined;
      if (!validators[MODERN_VERSION]![method === 'tools/call' ? 'tools_call' : 'tools_list'](body)) return undefined;
      return { method, id, params, meta, version: MODERN_VERSION, modern: true };
    }

    // 2025 era, stateless: the signed session id (if any) stands in for the missing version header.
    if (meta !== undefined && !onlyKeys(meta, LEGACY_META)) return undefined;
    let version = headerVersion;
    const sessionId = header(h, 'mcp-session-id');
    if (sessionId !== undefined) {
      const state = options.sessions.verify(sessionId);
      if (!state || state.e) return undefined;
      if (version === undefined && isSupportedLegacyVersion(state.v)) version = state.v;
    }
    if (version !== undefined && (version >= MODERN_VERSION || !isSupportedLegacyVersion(version))) return undefined;
    const accept = h.accept;
    if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
    const effective = version === undefined ? HEADERLESS_LEGACY_VERSION : effectiveVersion(version);
    if (!validators[effective]?.[method === 'tools/call' ? 'tools_call' : 'tools_list'](body)) return undefined;
    return { method, id, params, meta, version: effective, modern: false };
  }

  async function answer(req: IncomingMessage, res: ServerResponse, e: Eligible, principal: Principal | undefined): Promise<void> {
    const abort = new AbortController();
    let finished = false;
    res.on('close', () => {
      if (!finished) abort.abort();
    });
    // A 2025-era client cancels with a notification on another POST, not by closing this stream.
    const cancellable = e.modern || e.method !== 'tools/call' ? undefined : options.cancellations?.track(header(req.headers, 'mcp-session-id'), principal?.subject, e.id);
    cancellable?.signal?.addEventListener('abort', () => abort.abort(), { once: true });
    let keepAlive: NodeJS.Timeout | undefined;
    if (!e.modern) {
      // The SDK's 2025-era stream: headers now, keep-alive comments while the call runs, then one event.
      res.writeHead(200, SSE_HEADERS);
      if (Number.isFinite(options.keepAliveMs) && options.keepAliveMs >= 1) {
        keepAlive = setInterval(() => res.write(': keepalive\n\n'), options.keepAliveMs);
        keepAlive.unref();
      }
    }
    let message: Record<string, unknown>;
    try {
      const reply = e.method === 'tools/call' ? await callTool(req, e, abort.signal, principal) : await options.bridge.listTools(e.version, e.params.cursor as string | undefined, pickTraceparent(req.headers.traceparent, e.meta?.[TRACEPARENT_META_KEY])); // tracing: header before _meta
      message = 'error' in reply ? errorMessage(e.id, reply.error) : { result: e.modern ? encodeModernResult(e.method, reply.result as Record<string, unknown>, options.serverInfo) : reply.result, jsonrpc: '2.0', id: e.id };
    } catch (error) {
      if (abort.signal.aborted) {
        // The client went away or cancelled: MCP cancellation semantics, no answer.
        if (keepAlive) clearInterval(keepAlive);
        finished = true;
        cancellable?.done();
        res.end();
        return;
      }
      options.log.error({ err: error instanceof Error ? error.message : String(error) }, 'fast path: handler failed');
      message = errorMessage(e.id, { code: -32603, message: error instanceof Error ? error.message : String(error) });
    }
    if (keepAlive) clearInterval(keepAlive);
    finished = true;
    cancellable?.done();
    const json = JSON.stringify(message);
    if (e.modern) res.writeHead(200, JSON_HEADERS).end(json);
    else res.end(`event: message\ndata: ${json}\n\n`);
  }

  async function callTool(req: IncomingMessage, e: Eligible, signal: AbortSignal, principal: Principal | undefined): Promise<Reply<unknown>> {
    const traceparent = pickTraceparent(req.headers.traceparent, e.meta?.[TRACEPARENT_META_KEY]); // tracing: header before _meta
    const reply = await options.bridge.callTool(e.version, e.params.name as string, e.params.arguments, {
      signal,
      // The authenticated subject is the OXP user_id, exactly as on the SDK path.
      ...(principal ? { userId: principal.subject } : {}),
      urlElicitation: false,
      requestHeaders: nodeHeaders(req.headers),
      ...(traceparent ? { traceparent } : {}),
    });
    // Without URL elicitation the bridge never asks for input; anything else is a bug, answered as the SDK would.
    if ('inputRequired' in reply) throw new Error('unexpected input_required reply on the fast path');
    return reply;
  }

  return {
    stats,
    tryServe(req, res, body, principal) {
      const e = eligible(req.headers, body);
      if (!e) {
        stats.declined++;
        return false;
      }
      stats.served++;
      answer(req, res, e, principal).catch((error: unknown) => {
        options.log.error({ err: error instanceof Error ? error.message : String(error) }, 'fast path: response failed');
        res.destroy();
      });
      return true;
    },
  };
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
}

function onlyKeys(object: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key in object) if (!allowed.has(key)) return false;
  return true;
}

/** A JSON-RPC error message, keys in the SDK's order. */
function errorMessage(id: string | number, error: McpErrorReply): Record<string, unknown> {
  return { jsonrpc: '2.0', id, error: error.data === undefined ? { code: error.code, message: error.message } : { code: error.code, message: error.message, data: error.data } };
}

/**
 * The SDK's 2026-07-28 encode contract for a `complete` result: stamp
 * `resultType`, fill `ttlMs`/`cacheScope` on cacheable results (tools/list),
 * stamp `io.modelcontextprotocol/serverInfo` into `_meta` unless present.
 */
export function encodeModernResult(method: string, result: Record<string, unknown>, serverInfo: { name: string; version: string }): Record<string, unknown> {
  let out = result.resultType === undefined ? { ...result, resultType: 'complete' } : result;
  if (method === 'tools/list' && out.resultType === 'complete') {
    const ttlMs = typeof out.ttlMs === 'number' && Number.isInteger(out.ttlMs) && out.ttlMs >= 0 ? out.ttlMs : 0;
    const cacheScope = out.cacheScope === 'public' || out.cacheScope === 'private' ? out.cacheScope : 'private';
    if (out.ttlMs !== ttlMs || out.cacheScope !== cacheScope) out = { ...out, ttlMs, cacheScope };
  }
  const meta = out._meta;
  if (meta === undefined) return { ...out, _meta: { [SERVER_INFO_META_KEY]: serverInfo } };
  if (!isPlainObject(meta) || meta[SERVER_INFO_META_KEY] !== undefined) return out;
  return { ...out, _meta: { ...meta, [SERVER_INFO_META_KEY]: serverInfo } };
}

/** Node's request headers as the bridge reads them (lower-case names, repeated values joined as `Headers` does). */
function nodeHeaders(headers: IncomingHttpHeaders): HeaderReader {
  return {
    forEach(callback) {
      for (const name in headers) {
        const value = headers[name];
        if (typeof value === 'string') callback(value, name);
        else if (Array.isArray(value)) callback(value.join(', '), name);
      }
    },
  };
}
