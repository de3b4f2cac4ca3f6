/**
 * The OXP 1.0 HTTP face: `GET /health`, `GET /tools`, `POST /tools/call`
 * (and the `/call` alias some docs use) over any ToolSource.
 *
 * Spec-strict in what it writes (every body carries `$schema: urn:oxp:1.0`;
 * 400/422 bodies are ServerErrorResponse/ValidationErrorResponse), tolerant
 * in what it reads (`inputs`, a missing `request` wrapper, `$schema`
 * spellings, GET bodies). Before a source sees a call, the face has resolved
 * the version, validated the input (422) and checked the declared context
 * (400), so sources only run tools. Every call, run or refused, takes
 * the call gate's one step (calls/gate.ts: resolve, decide, check, limit,
 * run, record) with this face's steps (call-steps.ts; parsing a call is
 * parse-call.ts's); this face renders what it came to. The catalog's index
 * is catalog-index.ts's; who may call what access.ts's (the router
 * classifies the caller once, into the Principal every handler is given; a
 * tool the policy hides from it is an unknown id to it).
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { InputValidator } from '../../platform/validation/input-validator.js';
import { isPlainObject } from '../../core/json.js';
import { isAcceptedOxpSchema } from '../../core/oxp-versioning.js';
import { CATALOG_PENDING_HEADER, OXP_SCHEMA_URN, type OxpServerReply, type ServerErrorBody, type UnavailableBody } from '../../core/oxp-wire.js';
import type { Logger } from '../../platform/log.js';
import { pickTraceparent } from '../../core/trace.js';
import { ATTR } from '../../platform/telemetry/attributes.js';
import { tracer, type TraceSpan } from '../../platform/telemetry/tracer.js';
import type { Principal } from '../../core/principal.js';
import { OxpAccess } from './access.js';
import { CallGate, limitRefusalText, type CallSteps, type GateRefusal } from '../../calls/gate.js';
import { oxpCallSteps } from './call-steps.js';
import type { OxpServerAuth } from './inbound-auth.js';
import { OxpCall } from './oxp-call.js';
import { sendJson } from '../../platform/net/json-response.js';
import { CatalogIndex, type ToolIndex } from './catalog-index.js';
import { unknownId, UNSUPPORTED_SCHEMA, type CallRejection, type InvalidBody } from './parse-call.js';
import { allows, jsonBody, routePath, type Route } from './routes.js';
import type { SourceTool, ToolSource } from './tool-source.js';
import { drainRefusalHeaders, type DrainPhase } from '../../platform/net/drain-phase.js';

/** The call gate as the OXP face uses it: the source's tools, OXP replies, the access policy over the face's catalog. */
export type ReverseGate<T extends SourceTool = SourceTool> = CallGate<T, OxpServerReply, OxpAccess>;

export interface OxpAppOptions<T extends SourceTool = SourceTool> {
  maxBodyBytes: number;
  /** Compiled input validators kept (LRU). */
  maxValidators?: number;
  /** Absent: no authentication. */
  auth?: OxpServerAuth;
  /**
   * Every call passes through it: who may call what (reloadable: the caller keeps the gate's access and updates
   * it), the limits access rules carry, the record of every call (audit trail, console). Absent: everybody may call
   * every tool, nothing is limited or recorded (the embedded demo toolkit).
   */
  gate?: ReverseGate<T>;
  /** Where an orderly stop is: `/health` answers 503 once it starts, every other route 503 once it refuses. Absent: never. */
  drain?: DrainPhase;
  log: Logger;
}

/** What every handler of one app works with. */
interface Face<T extends SourceTool> {
  source: ToolSource<T>;
  options: OxpAppOptions<T>;
  catalog: CatalogIndex<T>;
  gate: ReverseGate<T>;
  /** This face's steps of the gate's one step (call-steps.ts). */
  steps: CallSteps<T, OxpCall<T>>;
}

export function createOxpApp<T extends SourceTool>(source: ToolSource<T>, options: OxpAppOptions<T>): RequestListener {
  const log = options.log;
  const catalog = new CatalogIndex(source);
  const gate = options.gate ?? new CallGate({ access: new OxpAccess(), log });
  const validator = new InputValidator(options.maxValidators ?? 2_000, log);
  const face: Face<T> = { source, options, catalog, gate, steps: oxpCallSteps({ source, catalog, access: gate.access, validator }) };
  const health = (_req: IncomingMessage, res: ServerResponse) => {
    const draining = options.drain?.draining === true;
    const ready = !draining && source.ready();
    sendJson(res, ready ? 200 : 503, { status: ready ? 'ok' : 'unavailable', ...source.health?.(), ...(draining ? { draining: true } : {}) });
  };
  const call: Route['handle'] = (req, res, path, principal) => callTool(face, req, res, path, principal);
  const routes = new Map<string, Route>([
    ['/health', { allow: 'GET, HEAD', open: true, handle: health }],
    ['/tools', { allow: 'GET, HEAD', handle: (req, res, _path, principal) => listTools(face, req, res, principal) }],
    ['/tools/call', { allow: 'POST', handle: call }],
    ['/call', { allow: 'POST', handle: call }],
  ]);

  return (req, res) => {
    if (options.drain?.refusing && routePath(req.url) !== '/health') return shuttingDown(res);
    // Anything thrown is the bridge's own failure, not the client's: 500, detail in the log.
    route(routes, options.auth, face.gate.access, log, req, res).catch((error: unknown) => {
      log.error({ err: error instanceof Error ? error.message : String(error) }, 'OXP request failed');
      if (!res.headersSent) sendJson(res, 500, { $schema: OXP_SCHEMA_URN, message: 'The server failed to answer this request.' });
      else res.destroy();
    });
  };
}

/** Once an orderly stop refuses new requests: 503, to be retried on another instance (platform/net/drain-phase.ts). */
function shuttingDown(res: ServerResponse): void {
  sendJson(res, 503, { $schema: OXP_SCHEMA_URN, message: 'The server is shutting down; retry on another instance.' }, drainRefusalHeaders());
}

/** Authentication (all but the open routes), then 404, 405 or the route's handler, told who is calling. */
async function route(
  routes: ReadonlyMap<string, Route>,
  auth: OxpServerAuth | undefined,
  access: OxpAccess,
  log: Logger,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const path = routePath(req.url);
  const found = routes.get(path);
  let principal = access.anonymous;
  // Everything but GET /health needs the configured credentials (none configured: the Authorization header is ignored).
  if (!(found?.open && allows(found, req.method)) && auth?.required) {
    const verdict = await auth.check(req.headers);
    if (!verdict.ok) {
      log.info({ path, reason: verdict.reason }, 'OXP request refused: not authenticated');
      return sendJson(res, 401, { $schema: OXP_SCHEMA_URN, message: 'Unauthorized' }, { 'www-authenticate': auth.challenge });
    }
    if (verdict.principal) principal = verdict.principal;
  }
  if (!found) return sendJson(res, 404, { $schema: OXP_SCHEMA_URN, message: 'Not found' });
  // A known path with the wrong method: 405 and the methods it has (RFC 9110 §15.5.6).
  if (!allows(found, req.method))
    return sendJson(
      res,
      405,
      { $schema: OXP_SCHEMA_URN, message: `Method ${req.method} is not allowed on ${path}; use ${found.allow.split(',')[0]}.` },
      { allow: found.allow },
    );
  await found.handle(req, res, path, principal);
}

/**
 * `GET /tools`: the tools this principal may call; 503 while the source has none listed yet (CATALOG_PENDING_HEADER
 * when only some of its servers have). It may carry a JSON body with `$schema`; none, or one that is not JSON, is fine.
 */
async function listTools<T extends SourceTool>(face: Face<T>, req: IncomingMessage, res: ServerResponse, principal: Principal): Promise<void> {
  const read = await jsonBody(req, face.options.maxBodyBytes, true);
  if (!read) return;
  if (!read.ok) return sendJson(res, read.status, { $schema: OXP_SCHEMA_URN, message: read.message });
  const body = read.body;
  if (isPlainObject(body) && !isAcceptedOxpSchema(body.$schema))
    return refuse(res, { message: UNSUPPORTED_SCHEMA, developer_message: `unsupported $schema ${JSON.stringify(body.$schema)}` });
  // Connecting is not empty: no source has listed its tools yet, so a 503 to ask again, not a list of none.
  const state = face.source.catalogState?.();
  if (state?.unavailable) return unavailable(res, state.unavailable);
  const pending = state?.pending ? { [CATALOG_PENDING_HEADER]: String(state.pending) } : undefined;
  sendJson(res, 200, face.gate.access.indexFor(face.catalog.current(), principal).list(), pending);
}

/**
 * `POST /tools/call`: the call gate's one step (calls/gate.ts) with this face's steps (call-steps.ts: looked up among
 * the tools this principal may call only, so a tool it may not call is an unknown id, refused before its input is
 * looked at), then its answer rendered: the refusal, or the source's reply.
 */
async function callTool<T extends SourceTool>(face: Face<T>, req: IncomingMessage, res: ServerResponse, path: string, principal: Principal): Promise<void> {
  const read = await jsonBody(req, face.options.maxBodyBytes);
  if (!read) return;
  if (!read.ok) return sendJson(res, read.status, { $schema: OXP_SCHEMA_URN, message: read.message });
  // The OXP request's server span, continuing the client's W3C `traceparent` header; ended when the answer is sent.
  const span = tracer().start(`POST ${path}`, { kind: 'server', parent: pickTraceparent(req.headers.traceparent, undefined) });
  const answer = { toolError: false };
  if (span.recording) res.once('close', () => endOxpSpan(span, path, res, answer.toolError));
  const call = new OxpCall<T>(principal, req.socket.remoteAddress, read.body, res);
  call.span = span;
  await face.gate.run(call, face.steps);
  render(face, call, answer);
}

/** The call's answer: the face's refusal (400/422/503), the gate's, or the source's reply (unless the client went away). */
function render<T extends SourceTool>(face: Face<T>, call: OxpCall<T>, answer: { toolError: boolean }): void {
  const { res } = call;
  if (call.rejection) return reject(res, call.rejection);
  if (call.refusal?.reason === 'denied' && call.unknown) return reject(res, call.unknown);
  if (call.refusal) return refusedByGate(res, call, call.refusal, () => face.gate.access.indexFor(face.catalog.current(), call.caller));
  if (call.reply && !res.destroyed) answerReply(res, call.reply, { callId: call.callId!, duration: call.durationMs! }, answer);
}

/**
 * The gate's refusal the OXP way. Over a limit: the tool's failure (HTTP 200, `success: false`, `can_retry`,
 * `retry_after_ms`), so the model and the official clients see when to try again, with no status code the OXP
 * contract does not list. Denied (the policy changed since the caller's view was looked in): an unknown id, as the
 * view would now answer.
 */
function refusedByGate<T extends SourceTool>(res: ServerResponse, call: OxpCall<T>, refusal: GateRefusal, view: () => ToolIndex<T>): void {
  if (refusal.reason === 'denied') return refuse(res, unknownId(call.askedToolId ?? call.oxpId!, view(), `no tool ${call.toolKey}`));
  const error = { message: limitRefusalText(refusal, call.toolKey), can_retry: true, retry_after_ms: refusal.retryAfterSeconds * 1000 };
  sendJson(res, 200, { $schema: OXP_SCHEMA_URN, result: { call_id: call.callId, duration: 0, success: false, error } });
}

/** The source's reply on the wire: `call_id` and `duration` on a result, its refusals as 400/422/503. */
function answerReply(res: ServerResponse, reply: OxpServerReply, ids: { callId: string; duration: number }, answer: { toolError: boolean }): void {
  if ('refused' in reply) return refuse(res, reply.refused);
  if ('unavailable' in reply) return unavailable(res, reply.unavailable);
  if ('invalid' in reply) return invalid(res, reply.invalid);
  if ('error' in reply) answer.toolError = true;
  const { callId, duration } = ids;
  const result =
    'error' in reply ? { call_id: callId, duration, success: false, error: reply.error } : { call_id: callId, duration, success: true, value: reply.value };
  sendJson(res, 200, { $schema: OXP_SCHEMA_URN, result });
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

function reject(res: ServerResponse, rejection: CallRejection): void {
  if (rejection.status === 503) unavailable(res, rejection.body);
  else if (rejection.status === 422) invalid(res, rejection.body);
  else refuse(res, rejection.body);
}

/** 503: the tool's server (or, for `GET /tools`, every server) is not connected (yet); `Retry-After` in whole seconds, the hints in the body. */
function unavailable(res: ServerResponse, body: UnavailableBody): void {
  sendJson(res, 503, { $schema: OXP_SCHEMA_URN, ...body }, { 'retry-after': String(Math.max(1, Math.ceil(body.retry_after_ms / 1000))) });
}

function refuse(res: ServerResponse, body: ServerErrorBody): void {
  sendJson(res, 400, { $schema: OXP_SCHEMA_URN, ...body });
}

function invalid(res: ServerResponse, body: InvalidBody): void {
  sendJson(res, 422, { $schema: OXP_SCHEMA_URN, ...body });
}
