/**
 * The one pipeline every HTTP MCP request goes through:
 *
 *   admission (admission.ts) → body, read once (platform/net/body-reader.ts) → classification into
 *   one InboundRequest (classify-http.ts) → dispatch: the face's own answer
 *   for plain tools/call and tools/list (hot-path.ts), or the SDK's endpoint
 *   for everything else, handed the same value.
 *
 * Both answers run the same tool-requests.ts functions, take the client's
 * abort from the same signal (the response closing before it was finished)
 * and reach 2025-era cancellations through the same registry. The SDK is
 * given a web `Request` built here (headers, the parsed body, that signal)
 * and its web `Response` is written back here (webRequest, writeWebResponse).
 *
 * Those two are an owned copy of the SDK's node adapter, `toNodeHandler`
 * (@modelcontextprotocol/node; docs/design.md, "Owned copies of library
 * code"), and not for speed: with the adapter in their place a call through
 * the SDK cost the same (bench/README.md#owned-copies-receipts-issue-31). The
 * adapter waits for a client that stops reading for as long as the connection
 * lasts, where this answer gives it `requestTimeoutMs` (test/hostile/tasks.test.ts,
 * a tasks/result never read); and it builds the request's URL from the Host
 * header, which is any text beyond loopback without a Host list
 * (test/integration/bad-input.test.ts). What holds it to the library:
 * test/integration/differential.test.ts (the answers of a plain SDK server
 * served by `toNodeHandler`). Delete it when the adapter bounds a stalled
 * reader.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Bridge } from '../bridge/bridge.js';
import type { Logger } from '../../platform/log.js';
import type { Metrics } from '../../platform/metrics.js';
import { readBody, tooLargeMessage } from '../../platform/net/body-reader.js';
import { drainRefusalHeaders, keepingConnectionClose } from '../../platform/net/drain-phase.js';
import { CallCancellations } from './cancellations.js';
import { ClientGone } from './client-gone.js';
import { classifyHttp, SESSION_HEADER } from './classify-http.js';
import { createAdmission, refusal, type AdmissionOptions, type AdmissionVerdict, type DrainTracker, type HttpAdmission } from './admission.js';
import type { Admitted } from './client-limits.js';
import { createHotPath, type HotPath } from './hot-path.js';
import type { HttpRefusal } from './inbound-auth.js';
import type { InboundRequest } from './inbound.js';
import type { ServerIdentity } from './mcp-server-sdk.js';
import { lazySdk, type LazySdk, type LoadedSdk } from './lazy-sdk.js';
import { SessionCodec } from './session.js';
import { agreeTasks, withTaskNotifications } from './task-notifications.js';
import type { TaskCalls } from '../bridge/task-calls.js';
import { JSONRPC_INTERNAL_ERROR, JSONRPC_INVALID_REQUEST, JSONRPC_SERVER_REFUSED } from '../../core/mcp-wire.js';

export interface PipelineOptions extends AdmissionOptions {
  maxJsonDepth: number;
  maxRequestBodyBytes: number;
  sessionSecret?: string | undefined;
  sessionTtlSeconds: number;
  keepAliveMs: number;
  metrics?: Metrics | undefined;
  /**
   * How long an answer may wait for a client that does not read it (`http.requestTimeoutMs`): past it the connection
   * is closed, so a stalled reader (a held tasks/result among them) holds no answer and no memory for ever.
   */
  requestTimeoutMs?: number;
}

export function createMcpPipeline(bridge: Bridge, identity: ServerIdentity, options: PipelineOptions, tracker: DrainTracker, log: Logger) {
  const sessions = new SessionCodec(options.sessionSecret, options.sessionTtlSeconds);
  const cancellations = new CallCancellations();
  const admission = createAdmission(options);
  const sdk = lazySdk(bridge, identity, {
    cancellations,
    maxRequestBodyBytes: options.maxRequestBodyBytes,
    keepAliveMs: options.keepAliveMs,
    onerror: (error) => log.debug({ err: error.message }, 'mcp endpoint reported'),
  });
  const hot = createHotPath({ bridge, serverInfo: { name: identity.name, version: identity.version }, keepAliveMs: options.keepAliveMs, log, cancellations });
  const parts: PipelineParts = { bridge, options, tracker, log, sessions, cancellations, admission, sdk, hot };
  const stopNotifying = bridge.onCatalogChange(() => sdk.notifyToolsChanged());
  // Subscribers are held by the SDK, each with its own principal: a policy reload that may change any view tells them all.
  const stopWatchingViews = bridge.onViewChange(() => sdk.notifyToolsChanged(), 'everyone');
  return {
    /** Every MCP request, whatever its method: exactly one answer. */
    handle(req: IncomingMessage, res: ServerResponse): void {
      handleRequest(parts, req, res);
    },
    close: async () => {
      stopNotifying();
      stopWatchingViews();
      await sdk.close();
    },
  };
}

/**
 * What every request needs, made once per pipeline. The per-request steps below are module functions taking it
 * as a parameter, not closures over it: serving a request makes no function beyond the few of handleRequest.
 */
interface PipelineParts {
  bridge: Bridge;
  options: PipelineOptions;
  tracker: DrainTracker;
  log: Logger;
  sessions: SessionCodec;
  cancellations: CallCancellations;
  admission: HttpAdmission;
  sdk: LazySdk;
  hot: HotPath;
}

type Principal = Parameters<typeof classifyHttp>[0]['principal'];

/** Counts a refusal made before dispatch (mcp_oxp_bridge_http_rejections_total), then returns it. */
function reject(options: PipelineOptions, reason: string, answer: HttpRefusal): HttpRefusal {
  options.metrics?.rejections.inc({ reason });
  return answer;
}

/** Before the body: draining, the drain count, the client's abort, the admission and its release, and a failure nothing else caught. */
function handleRequest(parts: PipelineParts, req: IncomingMessage, res: ServerResponse): void {
  const { tracker, admission } = parts;
  if (tracker.refusing)
    return send(
      res,
      reject(
        parts.options,
        'shutting_down',
        refusal(503, JSONRPC_INTERNAL_ERROR, 'The bridge is shutting down; retry on another instance.', drainRefusalHeaders()),
      ),
    );
  const left = tracker.enter();
  const clientGone = new ClientGone();
  let admitted: Admitted | undefined;
  res.on('close', () => {
    if (!res.writableFinished) clientGone.abort(new Error('the client went away'));
    admitted?.release();
    left();
  });
  // At once unless authentication waits (a JWT verified): the common request makes no promise here.
  const failed = (error: unknown) => fail(parts, res, error);
  const onVerdict = (verdict: AdmissionVerdict): void => {
    if (!verdict.ok) return send(res, verdict);
    admitted = verdict.admission;
    serve(parts, req, res, clientGone, verdict.principal, admitted).catch(failed);
  };
  try {
    const verdict = admission.admit(req);
    if (verdict instanceof Promise) verdict.then(onVerdict).catch(failed);
    else onVerdict(verdict);
  } catch (error) {
    failed(error);
  }
}

/** A failure nothing else caught: logged, answered 500 if the answer has not begun, else the connection cut. */
function fail(parts: PipelineParts, res: ServerResponse, error: unknown): void {
  parts.log.error({ err: error instanceof Error ? error.message : String(error) }, 'mcp request failed');
  if (!res.headersSent) send(res, refusal(500, JSONRPC_INTERNAL_ERROR, 'Internal error'));
  else res.destroy();
}

/** After admission: the body, the classification, and whichever answer it calls for. */
async function serve(
  parts: PipelineParts,
  req: IncomingMessage,
  res: ServerResponse,
  clientGone: ClientGone,
  principal: Principal,
  admitted: Admitted | undefined,
): Promise<void> {
  const { options, sessions, hot } = parts;
  const method = req.method ?? 'GET';
  // The SDK answers a POST that is not JSON (415) before it reads anything, and so does this.
  const contentType = req.headers['content-type'];
  // `application/json` as the SDK reads a Content-Type (`isJsonContentType`); the common spelling without loading it.
  if (method !== 'POST' || (contentType !== 'application/json' && !(await sdkOf(parts)).isJsonContentType(contentType ?? null)))
    return toSdk(parts, req, res, undefined, undefined, clientGone, principal);
  const read = await readBody(req, options.maxRequestBodyBytes, options.maxJsonDepth);
  if (read.kind === 'failed') return void res.destroy();
  if (read.kind === 'too-large') return send(res, refusal(413, JSONRPC_SERVER_REFUSED, tooLargeMessage(options.maxRequestBodyBytes)));
  if (read.kind === 'too-deep')
    return send(res, reject(options, 'json_too_deep', refusal(400, JSONRPC_INVALID_REQUEST, `Request nests deeper than ${options.maxJsonDepth} levels.`)));
  if (read.kind === 'not-json') return toSdk(parts, req, res, undefined, read.text, clientGone, principal);
  const body = read.body;
  const refused = Array.isArray(body) ? parts.admission.chargeBatch(body, admitted) : undefined;
  if (refused) return send(res, refused);
  const input = { method, headers: req.headers, body, principal, client: req.socket.remoteAddress, clientGone };
  // A hot shape is classified without the SDK; anything else waits for it.
  const classified = classifyHttp(input, sessions, parts.sdk.loaded?.classifier) ?? classifyHttp(input, sessions, (await parts.sdk.load()).classifier)!;
  if (classified.route === 'refuse') return send(res, classified.answer);
  const { inbound, session, mintSession } = classified;
  // 2025-era cancellations reach the call they name here; the SDK then acknowledges the notification as usual.
  if (inbound.sessionId !== undefined) parts.cancellations.cancelFrom(body, inbound.sessionId, principal?.subject);
  if (classified.hot) {
    if (!hot.ready) await hot.loaded;
    const plain = hot.eligible(classified.hot, inbound, session);
    if (plain) return hot.answer(res, inbound, plain);
  }
  if (inbound.taskIds && parts.bridge.tasks?.enabled) return listenWithTasks(parts, req, res, inbound, body, parts.bridge.tasks);
  const extraHeaders = mintSession ? { [SESSION_HEADER]: sessions.mint(mintSession.revision, mintSession.urlElicitation) } : undefined;
  return dispatchToSdk(parts, req, res, inbound, body, undefined, extraHeaders);
}

const sdkOf = (parts: PipelineParts): LoadedSdk | Promise<LoadedSdk> => parts.sdk.loaded ?? parts.sdk.load();

/** A request the SDK answers without a parsed body (not a POST, not JSON): classified from its headers alone. */
async function toSdk(
  parts: PipelineParts,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  text: string | undefined,
  clientGone: ClientGone,
  principal: Principal,
): Promise<void> {
  const input = { method: req.method ?? 'GET', headers: req.headers, principal, client: req.socket.remoteAddress, clientGone };
  const classified = classifyHttp(input, parts.sessions, undefined)!;
  if (classified.route === 'refuse') return send(res, classified.answer);
  return dispatchToSdk(parts, req, res, classified.inbound, body, text);
}

async function dispatchToSdk(
  parts: PipelineParts,
  req: IncomingMessage,
  res: ServerResponse,
  inbound: InboundRequest,
  body: unknown,
  text: string | undefined,
  extraHeaders?: Record<string, string>,
): Promise<void> {
  const response = await (await sdkOf(parts)).endpoint.fetch(webRequest(req, inbound.signal, text), inbound, body);
  // A session exists once initialize succeeded: the SDK answers a valid initialize with 200 and its result.
  await writeWebResponse(res, response, parts.options.requestTimeoutMs ?? DEFAULT_WRITE_STALL_MS, response.status === 200 ? extraHeaders : undefined);
}

/**
 * A 2026-07-28 `subscriptions/listen` naming task ids: the SDK's stream with the agreed tasks' status notifications
 * woven in, or the error it is answered (task-notifications.ts).
 */
async function listenWithTasks(parts: PipelineParts, req: IncomingMessage, res: ServerResponse, inbound: InboundRequest, body: unknown, tasks: TaskCalls) {
  const id = (body as { id: string | number }).id;
  const agreement = await agreeTasks(tasks, inbound, inbound.taskIds!);
  if ('error' in agreement)
    return send(res, { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id, error: agreement.error }) });
  const response = await (await sdkOf(parts)).endpoint.fetch(webRequest(req, inbound.signal, undefined), inbound, body);
  const stream = response.status === 200 && response.body && response.headers.get('content-type')?.startsWith('text/event-stream') ? response.body : undefined;
  const answer = stream
    ? new Response(withTaskNotifications(stream as ReadableStream<Uint8Array>, id, agreement.agreed, agreement.follow), response)
    : response;
  await writeWebResponse(res, answer, parts.options.requestTimeoutMs ?? DEFAULT_WRITE_STALL_MS);
}

export type McpPipeline = ReturnType<typeof createMcpPipeline>;

/** Resolves once `res` drained or closed; destroys it when the client has not read for `stallMs`. */
function drained(res: ServerResponse, stallMs: number): Promise<void> {
  if (!res.writableNeedDrain) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      res.off('drain', done).off('close', done);
      res.destroy(new Error(`the client read nothing for ${stallMs} ms`));
      resolve();
    }, stallMs);
    timer.unref();
    const done = () => {
      clearTimeout(timer);
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.once('drain', done).once('close', done);
  });
}

export function send(res: ServerResponse, answer: HttpRefusal): void {
  if (!res.headersSent) res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
}

/** The request as the SDK's fetch face takes it: its body travels parsed (`parsedBody`), or as text when it is not JSON. */
function webRequest(req: IncomingMessage, signal: AbortSignal, text: string | undefined): Request {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const method = req.method ?? 'GET';
  // The SDK does not look at the URL's host (admission checked Host); a fixed origin keeps an odd Host header from throwing here.
  return new Request(`http://localhost${req.url ?? '/'}`, {
    method,
    headers,
    signal,
    ...(text !== undefined && method !== 'GET' && method !== 'HEAD' ? { body: text } : {}),
  });
}

/** When no `requestTimeoutMs` is given (the server bounds' default). */
const DEFAULT_WRITE_STALL_MS = 60_000;

/**
 * Writes the SDK's web Response to node, streaming (SSE) bodies as they come; a client gone away cancels the stream,
 * and one that stops reading for `stallMs` is cut off.
 */
async function writeWebResponse(res: ServerResponse, response: Response, stallMs: number, extraHeaders?: Record<string, string>): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (extraHeaders) Object.assign(headers, extraHeaders);
  res.writeHead(response.status, keepingConnectionClose(res, headers));
  if (!response.body) return void res.end();
  // undici types a body as ReadableStream<any>; a web Response's chunks are bytes.
  const reader = response.body.getReader() as ReadableStreamDefaultReader<Uint8Array>;
  const cancel = () => void reader.cancel().catch(() => undefined);
  res.once('close', cancel);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await drained(res, stallMs);
      if (res.destroyed) return;
    }
    res.end();
  } catch {
    res.destroy();
  } finally {
    res.off('close', cancel);
  }
}
