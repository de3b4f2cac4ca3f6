/**
 * The OXP 1.0 HTTP face: `GET /health`, `GET /tools`, `POST /tools/call`
 * (and the `/call` alias some docs use) over any ToolSource.
 *
 * Spec-strict in what it writes (every body carries `$schema: urn:oxp:1.0`;
 * 400/422 bodies are ServerErrorResponse/ValidationErrorResponse), tolerant
 * in what it reads (`inputs`, a missing `request` wrapper, `$schema`
 * spellings, GET bodies). Before a source sees a call, the face has resolved
 * the version, validated the input (422) and checked the declared context
 * (400), so sources only run tools.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { InputValidator } from '../validation/input-validator.js';
import { MAX_INPUT_DEPTH } from '../core/bounds.js';
import { isPlainObject, jsonBoundExceeded, type JsonObject } from '../core/json.js';
import { isAcceptedOxpSchema, notFound, resolveToolVersion } from '../core/oxp-versioning.js';
import { OXP_SCHEMA_URN, type OxpServerReply, type ServerErrorBody, type UnavailableBody } from '../core/oxp-wire.js';
import { declaredContext, missingContext } from '../core/requirements.js';
import type { Logger } from '../log.js';
import { pickTraceparent } from '../core/trace.js';
import { ATTR } from '../telemetry/attributes.js';
import { logIds, tracer, type TraceSpan } from '../telemetry/tracer.js';
import type { OxpServerAuth } from './auth.js';
import { sendJson } from '../net/json-response.js';
import { allows, jsonBody, routePath, type Route } from './routes.js';
import type { SourceTool, ToolSource } from './tool-source.js';

export interface OxpAppOptions<T extends SourceTool = SourceTool> {
  maxBodyBytes: number;
  /** Compiled input validators kept (LRU). */
  maxValidators?: number;
  /** Absent: no authentication. */
  auth?: OxpServerAuth;
  log: Logger;
  /** Told about every call a source answered, after the answer (the console's recorder). */
  onCall?: (call: { tool: T; callId: string; traceId: string | undefined; durationMs: number; outcome: string; input: JsonObject; reply: OxpServerReply }) => void;
}

const TOOL_ID_RE = /^[A-Za-z0-9_]+\.[A-Za-z0-9_]+(@([0-9]+|[0-9]+\.[0-9]+\.[0-9]+))?$/;
const UNSUPPORTED_SCHEMA = 'This tool server supports OXP 1.0 only.';

/** The catalog indexed for lookups, rebuilt whenever the source hands out a new array. */
class CatalogIndex<T extends SourceTool> {
  private seen: readonly T[] | undefined;
  private byKey = new Map<string, Map<string, T>>();
  private listBody = '';

  constructor(private readonly source: ToolSource<T>) {}

  private refresh(): void {
    const tools = this.source.tools();
    if (tools === this.seen) return;
    this.seen = tools;
    this.byKey = new Map();
    for (const tool of tools) {
      const versions = this.byKey.get(tool.key) ?? new Map<string, T>();
      versions.set(tool.version, tool);
      this.byKey.set(tool.key, versions);
    }
    // Serialised once per catalog: listing is the hot path of many clients.
    this.listBody = JSON.stringify({ $schema: OXP_SCHEMA_URN, items: tools.map((t) => t.definition) });
  }

  list(): string {
    this.refresh();
    return this.listBody;
  }

  resolve(toolId: string): T | undefined {
    this.refresh();
    const resolved = resolveToolVersion(toolId, (key) => {
      const versions = this.byKey.get(key);
      return versions ? [...versions.keys()] : undefined;
    });
    return resolved ? this.byKey.get(resolved.key)?.get(resolved.version) : undefined;
  }

  has(key: string): boolean {
    this.refresh();
    return this.byKey.has(key);
  }
}

export function createOxpApp<T extends SourceTool>(source: ToolSource<T>, options: OxpAppOptions<T>): RequestListener {
  const index = new CatalogIndex(source);
  const log = options.log;
  const validator = new InputValidator(options.maxValidators ?? 2_000, log);
  const auth = options.auth;

  const health = (_req: IncomingMessage, res: ServerResponse) => {
    const ready = source.ready();
    sendJson(res, ready ? 200 : 503, { status: ready ? 'ok' : 'unavailable', ...source.health?.() });
  };

  // GET /tools may carry a JSON body with `$schema`; none, or one that is not JSON, is fine.
  const tools = async (req: IncomingMessage, res: ServerResponse) => {
    const read = await jsonBody(req, options.maxBodyBytes, true);
    if (!read) return;
    if (!read.ok) return sendJson(res, read.status, { $schema: OXP_SCHEMA_URN, message: read.message });
    const body = read.body;
    if (isPlainObject(body) && !isAcceptedOxpSchema(body.$schema)) return refuse(res, { message: UNSUPPORTED_SCHEMA, developer_message: `unsupported $schema ${JSON.stringify(body.$schema)}` });
    sendJson(res, 200, index.list());
  };

  const call = async (req: IncomingMessage, res: ServerResponse, path: string) => {
    const read = await jsonBody(req, options.maxBodyBytes);
    if (!read) return;
    if (!read.ok) return sendJson(res, read.status, { $schema: OXP_SCHEMA_URN, message: read.message });
    // The OXP request's server span, continuing the client's W3C `traceparent` header; ended when the answer is sent.
    const span = tracer().start(`POST ${path}`, { kind: 'server', parent: pickTraceparent(req.headers.traceparent, undefined) });
    const answer = { toolError: false };
    if (span.recording) res.once('close', () => endOxpSpan(span, path, res, answer.toolError));
    const body: unknown = read.body;
    if (!isPlainObject(body)) return refuse(res, { message: 'The request body must be a JSON object with a "request" member.' });
    if (!isAcceptedOxpSchema(body.$schema)) return refuse(res, { message: UNSUPPORTED_SCHEMA, developer_message: `unsupported $schema ${JSON.stringify(body.$schema)}` });
    // Tolerated: a CallToolRequest sent without its `request` wrapper.
    const request = isPlainObject(body.request) ? body.request : typeof body.tool_id === 'string' ? body : undefined;
    if (!request) return refuse(res, { message: 'The request body must be a JSON object with a "request" member.' });
    const toolId = request.tool_id;
    if (typeof toolId !== 'string' || toolId === '') return refuse(res, { message: 'The request has no tool_id.' });
    if (!TOOL_ID_RE.test(toolId)) return refuse(res, notFound(toolId, 'tool_id does not match Toolkit.Tool[@x | @x.y.z]'));
    const tool = index.resolve(toolId);
    if (!tool) {
      const key = toolId.split('@')[0]!;
      const pending = index.has(key) ? undefined : source.notListedYet?.(key);
      if (pending) return unavailable(res, pending);
      return refuse(res, notFound(toolId, index.has(key) ? `${key} has no version matching ${toolId}` : `no tool ${key}`));
    }
    const rawInput = request.input !== undefined ? request.input : request.inputs;
    if (rawInput !== undefined && rawInput !== null && !isPlainObject(rawInput)) {
      return invalid(res, { message: 'The input must be a JSON object.', parameter_errors: { '(input)': 'must be object' } });
    }
    const input = (rawInput ?? {}) as JsonObject;
    // Everything after this point (validation, the MCP client's serialisation) recurses over the input.
    if (jsonBoundExceeded(input, MAX_INPUT_DEPTH)) return invalid(res, { message: `The input nests deeper than ${MAX_INPUT_DEPTH} levels.`, parameter_errors: { '(input)': `nests deeper than ${MAX_INPUT_DEPTH} levels` } });
    const parameterErrors = validator.check({ id: `${tool.key}@${tool.version}`, inputSchema: tool.inputSchema }, input);
    if (parameterErrors) {
      return invalid(res, { message: 'Some input parameters are invalid', parameter_errors: Object.fromEntries(parameterErrors.map((p) => [p.parameter, p.message])) });
    }
    const context = isPlainObject(request.context) ? (request.context as JsonObject) : undefined;
    const missing = missingContext(tool.requirements, context);
    if (missing) return refuse(res, missing);

    const callId = typeof request.call_id === 'string' && request.call_id !== '' ? request.call_id : randomUUID();
    if (span.recording) span.set({ [ATTR.toolName]: `${tool.key}@${tool.version}`, [ATTR.toolCallId]: callId });
    const aborter = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) aborter.abort();
    });
    const started = performance.now();
    const declared = declaredContext(tool.requirements, context);
    const reply = await source.call(tool, input, {
      callId,
      signal: aborter.signal,
      ...(typeof request.trace_id === 'string' ? { traceId: request.trace_id } : {}),
      ...(declared ? { context: declared } : {}),
      span,
    });
    const duration = Math.round((performance.now() - started) * 1000) / 1000;
    if (span.recording) span.set({ [ATTR.outcome]: outcomeName(reply) });
    if (log.isLevelEnabled('debug')) log.debug({ tool: `${tool.key}@${tool.version}`, call_id: callId, ...logIds(span, typeof request.trace_id === 'string' ? request.trace_id : undefined), duration, outcome: outcomeName(reply) }, 'OXP call');
    options.onCall?.({ tool, callId, traceId: typeof request.trace_id === 'string' ? request.trace_id : undefined, durationMs: performance.now() - started, outcome: res.destroyed ? 'cancelled' : outcomeName(reply), input, reply });
    if (res.destroyed) return;
    if ('refused' in reply) return refuse(res, reply.refused);
    if ('unavailable' in reply) return unavailable(res, reply.unavailable);
    if ('invalid' in reply) return invalid(res, reply.invalid);
    if ('error' in reply) answer.toolError = true;
    const result = 'error' in reply ? { call_id: callId, duration, success: false, error: reply.error } : { call_id: callId, duration, success: true, value: reply.value };
    sendJson(res, 200, { $schema: OXP_SCHEMA_URN, result });
  };

  const routes = new Map<string, Route>([
    ['/health', { allow: 'GET, HEAD', open: true, handle: health }],
    ['/tools', { allow: 'GET, HEAD', handle: tools }],
    ['/tools/call', { allow: 'POST', handle: call }],
    ['/call', { allow: 'POST', handle: call }],
  ]);

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = routePath(req.url);
    const found = routes.get(path);
    // Everything but GET /health needs the configured credentials (none configured: the Authorization header is ignored).
    if (!(found?.open && allows(found, req.method)) && auth?.required) {
      const verdict = await auth.check(req.headers);
      if (!verdict.ok) {
        log.info({ path, reason: verdict.reason }, 'OXP request refused: not authenticated');
        return sendJson(res, 401, { $schema: OXP_SCHEMA_URN, message: 'Unauthorized' }, { 'www-authenticate': auth.challenge });
      }
    }
    if (!found) return sendJson(res, 404, { $schema: OXP_SCHEMA_URN, message: 'Not found' });
    // A known path with the wrong method: 405 and the methods it has (RFC 9110 §15.5.6).
    if (!allows(found, req.method)) return sendJson(res, 405, { $schema: OXP_SCHEMA_URN, message: `Method ${req.method} is not allowed on ${path}; use ${found.allow.split(',')[0]}.` }, { allow: found.allow });
    await found.handle(req, res, path);
  }

  return (req, res) => {
    // Anything thrown is the bridge's own failure, not the client's: 500, detail in the log.
    route(req, res).catch((error: unknown) => {
      log.error({ err: error instanceof Error ? error.message : String(error) }, 'OXP request failed');
      if (!res.headersSent) sendJson(res, 500, { $schema: OXP_SCHEMA_URN, message: 'The server failed to answer this request.' });
      else res.destroy();
    });
  };
}

/** HTTP server span conventions: method, route, status; failed on a 5xx or a tool error. */
function endOxpSpan(span: TraceSpan, path: string, res: ServerResponse, toolError: boolean): void {
  const status = res.writableFinished ? res.statusCode : 0;
  span.set({ [ATTR.httpMethod]: 'POST', [ATTR.urlPath]: path, ...(status ? { [ATTR.httpStatus]: status } : { [ATTR.outcome]: 'cancelled' }) });
  if (status === 0) span.fail('cancelled');
  else if (status >= 500) span.fail(String(status));
  else if (span.recording && toolError) span.fail('tool_error');
  span.end();
}

function outcomeName(reply: OxpServerReply): string {
  return 'value' in reply ? 'success' : 'error' in reply ? 'tool_error' : 'refused' in reply ? 'refused' : 'unavailable' in reply ? 'unavailable' : 'invalid_input';
}

/** 503: the tool's server is not connected (yet); `Retry-After` in whole seconds, the hints in the body. */
function unavailable(res: ServerResponse, body: UnavailableBody): void {
  sendJson(res, 503, { $schema: OXP_SCHEMA_URN, ...body }, { 'retry-after': String(Math.max(1, Math.ceil(body.retry_after_ms / 1000))) });
}

function refuse(res: ServerResponse, body: ServerErrorBody): void {
  sendJson(res, 400, { $schema: OXP_SCHEMA_URN, ...body });
}

function invalid(res: ServerResponse, body: { message: string; parameter_errors?: Record<string, string> }): void {
  sendJson(res, 422, { $schema: OXP_SCHEMA_URN, ...body });
}
