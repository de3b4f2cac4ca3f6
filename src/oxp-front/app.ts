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
import express, { type NextFunction, type Request, type Response } from 'express';
import { InputValidator } from '../shared/input-validator.js';
import { MAX_INPUT_DEPTH } from '../core/bounds.js';
import { isPlainObject, jsonBoundExceeded, tryParseJson, type JsonObject } from '../core/json.js';
import { isAcceptedOxpSchema, notFound, resolveToolVersion } from '../core/oxp-versioning.js';
import { OXP_SCHEMA_URN, type OxpServerReply, type ServerErrorBody, type UnavailableBody } from '../core/oxp-wire.js';
import { declaredContext, missingContext } from '../core/requirements.js';
import type { Logger } from '../log.js';
import { pickTraceparent } from '../core/trace.js';
import { ATTR } from '../telemetry/attributes.js';
import { logIds, tracer, type TraceSpan } from '../telemetry/tracer.js';
import type { OxpServerAuth } from './auth.js';
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

export function createOxpApp<T extends SourceTool>(source: ToolSource<T>, options: OxpAppOptions<T>): express.Express {
  const index = new CatalogIndex(source);
  const log = options.log;
  const validator = new InputValidator(options.maxValidators ?? 2_000, log);
  const auth = options.auth;

  const app = express();
  app.disable('x-powered-by');
  app.get('/health', (_req, res) => {
    const ready = source.ready();
    res.status(ready ? 200 : 503).json({ status: ready ? 'ok' : 'unavailable', ...source.health?.() });
  });

  // Everything but /health needs the configured credentials (none configured: the Authorization header is ignored).
  app.use(async (req: Request, res: Response, next: NextFunction) => {
    if (!auth?.required) return next();
    const verdict = await auth.check(req.headers);
    if (verdict.ok) return next();
    log.info({ path: req.path, reason: verdict.reason }, 'OXP request refused: not authenticated');
    res.status(401).set('www-authenticate', auth.challenge).json({ $schema: OXP_SCHEMA_URN, message: 'Unauthorized' });
  });

  // GET /tools may carry a JSON body with `$schema`; none, or one that is not JSON, is fine.
  app.get('/tools', express.text({ limit: options.maxBodyBytes, type: () => true }), (req, res) => {
    const body = typeof req.body === 'string' ? tryParseJson(req.body) : undefined;
    if (isPlainObject(body) && !isAcceptedOxpSchema(body.$schema)) return void refuse(res, { message: UNSUPPORTED_SCHEMA, developer_message: `unsupported $schema ${JSON.stringify(body.$schema)}` });
    res.type('application/json').send(index.list());
  });

  const call = async (req: Request, res: Response) => {
    // The OXP request's server span, continuing the client's W3C `traceparent` header; ended when the answer is sent.
    const span = tracer().start(`POST ${req.path}`, { kind: 'server', parent: pickTraceparent(req.headers.traceparent, undefined) });
    if (span.recording) res.once('close', () => endOxpSpan(span, req.path, res));
    const body: unknown = req.body;
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
    if ('error' in reply) res.locals.toolError = true;
    const result = 'error' in reply ? { call_id: callId, duration, success: false, error: reply.error } : { call_id: callId, duration, success: true, value: reply.value };
    res.json({ $schema: OXP_SCHEMA_URN, result });
  };
  const json = express.json({ limit: options.maxBodyBytes, type: () => true, strict: false });
  app.post('/tools/call', json, call);
  app.post('/call', json, call);
  // A known path with the wrong method: 405 and the methods it has (RFC 9110 §15.5.6).
  for (const [path, allowed] of [['/health', 'GET, HEAD'], ['/tools', 'GET, HEAD'], ['/tools/call', 'POST'], ['/call', 'POST']] as const) {
    app.all(path, (req, res) => {
      res.status(405).set('allow', allowed).json({ $schema: OXP_SCHEMA_URN, message: `Method ${req.method} is not allowed on ${path}; use ${allowed.split(',')[0]}.` });
    });
  }
  app.use((_req, res) => {
    res.status(404).json({ $schema: OXP_SCHEMA_URN, message: 'Not found' });
  });
  // Body-parser failures (bad JSON, too large) → spec-shaped 400, never a stack trace. Anything
  // else is the bridge's own failure, not the client's JSON: 500, detail in the log.
  app.use((err: { status?: number; message?: string; type?: unknown }, _req: Request, res: Response, _next: NextFunction) => {
    if (err.type === undefined) {
      log.error({ err: err.message ?? String(err) }, 'OXP request failed');
      return void res.status(500).json({ $schema: OXP_SCHEMA_URN, message: 'The server failed to answer this request.' });
    }
    res.status(err.status === 413 ? 413 : 400).json({ $schema: OXP_SCHEMA_URN, message: err.status === 413 ? 'Request body too large' : 'The request body is not valid JSON.' });
  });
  return app;
}

/** HTTP server span conventions: method, route, status; failed on a 5xx or a tool error. */
function endOxpSpan(span: TraceSpan, path: string, res: Response): void {
  const status = res.writableFinished ? res.statusCode : 0;
  span.set({ [ATTR.httpMethod]: 'POST', [ATTR.urlPath]: path, ...(status ? { [ATTR.httpStatus]: status } : { [ATTR.outcome]: 'cancelled' }) });
  if (status === 0) span.fail('cancelled');
  else if (status >= 500) span.fail(String(status));
  else if (span.recording && res.locals.toolError) span.fail('tool_error');
  span.end();
}

function outcomeName(reply: OxpServerReply): string {
  return 'value' in reply ? 'success' : 'error' in reply ? 'tool_error' : 'refused' in reply ? 'refused' : 'unavailable' in reply ? 'unavailable' : 'invalid_input';
}

/** 503: the tool's server is not connected (yet); `Retry-After` in whole seconds, the hints in the body. */
function unavailable(res: Response, body: UnavailableBody): void {
  res.status(503).set('retry-after', String(Math.max(1, Math.ceil(body.retry_after_ms / 1000)))).json({ $schema: OXP_SCHEMA_URN, ...body });
}

function refuse(res: Response, body: ServerErrorBody): void {
  res.status(400).json({ $schema: OXP_SCHEMA_URN, ...body });
}

function invalid(res: Response, body: { message: string; parameter_errors?: Record<string, string> }): void {
  res.status(422).json({ $schema: OXP_SCHEMA_URN, ...body });
}
