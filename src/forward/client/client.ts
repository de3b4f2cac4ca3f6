/**
 * HTTP client for one OXP tool server. Strict writer: every call body carries
 * `$schema`, `input` and a `call_id`; GET never carries a body. Every failure
 * comes back as a classified OxpCallOutcome, never as a throw — except the
 * caller's own cancellation, which rejects with the caller's abort reason.
 */
import type { CallSignal } from '../../platform/shared/call-signal.js';
import { CallAbort } from './call-abort.js';
import { CallPool, type ConnectionWait, type PostOutcome } from './call-pool.js';
import { flatHeaders, httpGet } from './http-get.js';
import type { JsonObject } from '../../core/json.js';
import { decodeCallResponse, decodeToolList, retryAfterFromHeaders, type DecodedToolList, type RawHttpResponse } from '../../core/oxp-decode.js';
import { tryParseJson } from '../../core/json.js';
import { CATALOG_PENDING_HEADER, OXP_SCHEMA_URN, type OxpCallOutcome } from '../../core/oxp-wire.js';
import { authHeaderSource } from './upstream-auth.js';
import type { OxpClientLimits, UpstreamAuth } from '../../config/upstream-settings.js';

/** Deadlines and bounds for one upstream (configuration keys `upstream.*`). */
export type { OxpClientLimits } from '../../config/upstream-settings.js';

export interface OxpClientOptions extends OxpClientLimits {
  baseUrl: string;
  auth: UpstreamAuth;
  userAgent: string;
}

export interface OxpCallRequest {
  toolId: string;
  callId: string;
  input: JsonObject;
  traceId?: string;
  context?: JsonObject;
  /**
   * A per-user bearer token for this call only (token exchange, `use: bearer`): sent as `Authorization: Bearer`
   * instead of the upstream's static credentials. Never logged.
   */
  bearerToken?: string;
  /** Told when the call waits for a connection (every one of upstream.connections busy) and when it got one. */
  onConnectionWait?: ConnectionWait;
}

/**
 * No tool list could be had. `message` may quote the upstream (its body, for
 * logs at debug level); `reason` is the bridge's own words only (for
 * /readyz and error-level logs): an upstream's error text never leaves the
 * bridge through them.
 */
export class OxpListError extends Error {
  constructor(
    message: string,
    readonly reason: string,
    readonly status?: number,
    /** How long the server asked to be left alone (`Retry-After`), bounded by MAX_RETRY_AFTER_MS. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'OxpListError';
  }

  /** The tool server refused the bridge's own credentials: an operator's problem, not the network's. */
  get credentialsRefused(): boolean {
    return this.status === 401 || this.status === 403;
  }
}

/**
 * A 404 for the tool list most often means the URL is not the server's base URL: given with `/tools` (copied from
 * the list's address), the bridge asked for `/tools/tools`. Said in the reason, which /readyz, the log and doctor show.
 */
function notFoundHint(status: number, baseUrl: string): string {
  if (status !== 404) return '';
  const path = URL.canParse(baseUrl) ? new URL(baseUrl).pathname : '';
  if (/\/tools(\/call)?$/i.test(path))
    return `: the URL ends in ${/call$/i.test(path) ? '/tools/call' : '/tools'}, so the list was asked at ${path}/tools; give the OXP server's base URL, without it`;
  return ": is the URL the OXP server's base URL, the one whose /tools lists its tools?";
}

/** A tool list, and how many of the OXP server's own tool servers have not listed theirs yet (0: it is whole). */
export interface ToolList extends DecodedToolList {
  pending: number;
}

/** A `GET /tools` answered with another status than 200, in the bridge's own words (the body only in `message`). */
function listRefusal(res: RawHttpResponse, baseUrl: string): OxpListError {
  const message = `GET /tools answered HTTP ${res.status}: ${res.body.slice(0, 300)}`;
  const retryAfterMs = retryAfterFromHeaders(res.headers);
  if (res.status === 401 || res.status === 403)
    return new OxpListError(message, `the tool server refused the bridge's credentials (HTTP ${res.status} from GET /tools)`, res.status);
  // An oxp-server whose MCP servers are still connecting (or any server or proxy "unavailable for now").
  if (res.status === 503) return new OxpListError(message, 'the tool server is not ready yet (HTTP 503 from GET /tools)', 503, retryAfterMs);
  return new OxpListError(message, `HTTP ${res.status} from GET /tools${notFoundHint(res.status, baseUrl)}`, res.status, retryAfterMs);
}

/** CATALOG_PENDING_HEADER's value: a small whole number, else 0 (an upstream's header is not trusted further). */
function pendingOf(raw: string | undefined): number {
  return raw !== undefined && /^\s*\d{1,4}\s*$/.test(raw) ? Number(raw) : 0;
}

export class OxpClient {
  readonly baseUrl: string;
  /** The keep-alive pool of tools/call, opened on the first call. */
  private pool?: CallPool;
  private closed = false;
  private readonly authHeaders;
  private readonly toolsUrl: URL | string;
  /** GETs under way: close() waits for them, destroy() aborts them. */
  private readonly gets = new Map<AbortController, Promise<unknown>>();

  constructor(private readonly options: OxpClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.toolsUrl = urlOf(`${this.baseUrl}/tools`);
    this.authHeaders = authHeaderSource(options.auth);
  }

  private openPool(): CallPool {
    const { connections, connectTimeoutMs, maxResponseBytes } = this.options;
    const url = urlOf(`${this.baseUrl}/tools/call`);
    if (typeof url === 'string') throw new Error(`not a URL: ${url}`);
    return (this.pool = new CallPool(url, { connections, connectTimeoutMs, maxResponseBytes }));
  }

  /** Calls sent again on a fresh connection because their pooled one was dead (call-pool.ts). */
  get retriedOnFreshConnection(): number {
    return this.pool?.retriedOnFreshConnection ?? 0;
  }

  /** Calls waiting for a connection to this upstream now (call-pool.ts): read when /metrics is scraped. */
  get queuedCalls(): number {
    return this.pool?.queued ?? 0;
  }

  /**
   * GET /tools, decoded tolerantly, with how many of the server's own sources have not listed yet (`pending`, from
   * CATALOG_PENDING_HEADER; 0 when absent). Throws OxpListError when no list could be had.
   */
  async listTools(signal?: AbortSignal): Promise<ToolList> {
    const res = await this.exchange(this.toolsUrl, this.options.listTimeoutMs, signal);
    if ('failure' in res) throw new OxpListError(`GET /tools failed: ${res.failure.detail}`, `GET /tools: ${failureReason(res.failure)}`);
    if (res.status !== 200) throw listRefusal(res, this.baseUrl);
    const body = tryParseJson(res.body);
    if (body === undefined) {
      const reason = `GET /tools answered a body that is not JSON (${res.body.length} bytes)`;
      throw new OxpListError(reason, reason, res.status);
    }
    return { ...decodeToolList(body, this.options.maxTools), pending: pendingOf(res.headers[CATALOG_PENDING_HEADER]) };
  }

  /**
   * POST /tools/call. Resolves with an outcome for every upstream behaviour.
   * `traceparent`: W3C trace context sent as an HTTP header (tracing on: the
   * attempt's span); a parameter of its own, so an attempt need not copy `call`. Not an async function: the
   * exchange's promise is decoded by one `then` (an async frame of its own was garbage every call left).
   */
  callTool(call: OxpCallRequest, signal?: CallSignal, timeoutMs = this.options.callTimeoutMs, traceparent?: string): Promise<OxpCallOutcome> {
    const request: JsonObject = { tool_id: call.toolId, call_id: call.callId, input: call.input };
    if (call.traceId) request.trace_id = call.traceId;
    if (call.context) request.context = call.context;
    const body = JSON.stringify({ $schema: OXP_SCHEMA_URN, request });
    // One abort for the deadline and the caller's cancellation (call-abort.ts), from before the credentials: a token
    // being fetched is waited for within the call's deadline.
    const abort = new CallAbort(timeoutMs, signal);
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.options.userAgent };
    if (call.bearerToken !== undefined) headers.authorization = `Bearer ${call.bearerToken}`;
    else {
      const auth = this.authHeaders();
      if (auth instanceof Promise)
        return auth.then(
          (fetched) => this.post(body, Object.assign(headers, fetched), abort, traceparent, call.onConnectionWait),
          (error: unknown) => {
            abort.done();
            throw error;
          },
        );
      Object.assign(headers, auth);
    }
    return this.post(body, headers, abort, traceparent, call.onConnectionWait);
  }

  /** The POST through the pool, its answer decoded or its failure classified (`postOutcome`). */
  private post(body: string, headers: Record<string, string>, abort: CallAbort, traceparent: string | undefined, onWait: ConnectionWait | undefined) {
    headers['content-type'] = 'application/json';
    if (traceparent !== undefined) headers.traceparent = traceparent;
    let pool: CallPool;
    try {
      if (this.closed) throw Object.assign(new Error('the OXP client is closed'), { code: 'CLIENT_CLOSED' });
      pool = this.pool ?? this.openPool();
    } catch (error) {
      abort.done();
      return new Promise<OxpCallOutcome>((resolve) => resolve(this.postOutcome.failed(error, abort)));
    }
    return pool.post(body, headers, abort, this.postOutcome, onWait);
  }

  /**
   * What a POST comes to: its answer decoded, or its failure classified — except the caller's own cancellation,
   * which rejects with the caller's reason. One object per client, not closures per call.
   */
  private readonly postOutcome: PostOutcome<OxpCallOutcome> = {
    answered: (res) => decodeCallResponse({ status: res.status, headers: flatHeaders(res.headers), body: res.body }),
    failed: (error, abort) => {
      if (abort.caller?.aborted) throw abort.caller.reason ?? error;
      return classifyTransportError(error, abort.deadlinePassed, abort.timeoutMs!, this.options.maxResponseBytes);
    },
  };

  /**
   * Polls an authorization `check_url` until it reports completion, failure,
   * or `maxWaitMs` passes. Upstream credentials are sent only when the URL is
   * on the upstream's own origin. OXP leaves the body open: `{"status":...}`
   * with completed/complete/authorized/success/granted means done,
   * pending/in_progress (or 202) means wait, anything else is a failure.
   */
  async waitForAuthorization(checkUrl: string, intervalMs: number, maxWaitMs: number, signal?: CallSignal): Promise<'completed' | 'failed' | 'timeout'> {
    let url: URL;
    try {
      url = new URL(checkUrl);
    } catch {
      return 'failed';
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'failed';
    const sameOrigin = url.origin === new URL(this.baseUrl).origin;
    const deadline = Date.now() + maxWaitMs;
    while (Date.now() < deadline) {
      // Upstream credentials only on the upstream's own origin; a failed poll is polled again, until the deadline.
      const res = await this.exchange(url, this.options.listTimeoutMs, signal, sameOrigin);
      if (!('failure' in res)) {
        const body = tryParseJson(res.body);
        const status = (body && typeof body === 'object' && 'status' in body ? String(body.status) : '').toLowerCase();
        if (res.status === 200 && (status === '' || /^(completed?|authorized|success|granted|ok)$/.test(status))) return 'completed';
        if (res.status !== 202 && !(res.status === 200 && /^(pending|in_progress|waiting)$/.test(status))) return 'failed';
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(intervalMs, Math.max(0, deadline - Date.now()))));
    }
    return 'timeout';
  }

  /** Closes the pool once the requests under way have finished. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([this.pool?.close(), ...[...this.gets.values()].map((get) => get.catch(() => undefined))]);
  }

  /** Closes the pool now, aborting the requests under way (shutdown after the grace period). */
  async destroy(): Promise<void> {
    this.closed = true;
    for (const controller of this.gets.keys()) controller.abort(new Error('the OXP client was shut down'));
    this.pool?.destroy();
  }

  /** One GET over a connection of its own (http-get.ts): its answer, or its transport failure classified. */
  private async exchange(
    url: URL | string,
    timeoutMs: number,
    signal: CallSignal | undefined,
    auth = true,
  ): Promise<RawHttpResponse | { failure: TransportFailure }> {
    // One abort for the deadline and the caller's cancellation, rather than AbortSignal.timeout + AbortSignal.any,
    // which cost far more per call (bench/README.md#what-was-changed-and-what-it-did, item 3).
    const abort = new AbortController();
    let deadlinePassed = false;
    const timer = setTimeout(() => {
      deadlinePassed = true;
      abort.abort(new DOMException(`no complete answer within ${timeoutMs} ms`, 'TimeoutError'));
    }, timeoutMs);
    timer.unref();
    const onCallerAbort = () => abort.abort(signal!.reason);
    if (signal?.aborted) abort.abort(signal.reason);
    // An abort fires once: the listener needs no `once` (an options object per call), and goes in `finally`.
    else signal?.addEventListener('abort', onCallerAbort);
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.options.userAgent };
    if (auth) {
      const fetched = this.authHeaders();
      Object.assign(headers, fetched instanceof Promise ? await fetched : fetched);
    }
    try {
      return await this.get(url, headers, abort);
    } catch (error) {
      // The caller's own cancellation is not an upstream failure: let it propagate.
      if (signal?.aborted) throw signal.reason ?? error;
      return { failure: classifyTransportError(error, deadlinePassed, timeoutMs, this.options.maxResponseBytes) };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  private get(url: URL | string, headers: Record<string, string>, controller: AbortController): Promise<RawHttpResponse> {
    if (typeof url === 'string') return Promise.reject(new Error(`not a URL: ${url}`));
    const { connectTimeoutMs, maxResponseBytes } = this.options;
    const get = httpGet(url, { headers, signal: controller.signal, connectTimeoutMs, maxResponseBytes });
    this.gets.set(controller, get);
    return get.finally(() => this.gets.delete(controller));
  }
}

type TransportFailure = Extract<OxpCallOutcome, { kind: 'unreachable' | 'timeout' | 'protocol_error' }>;

/** A URL parsed once; one that does not parse stays a string, so each exchange fails (classified) as before. */
function urlOf(url: string): URL | string {
  try {
    return new URL(url);
  } catch {
    return url;
  }
}

/** A transport failure in the bridge's own words (no upstream text, no addresses). */
export function failureReason(failure: TransportFailure): string {
  if (failure.kind === 'timeout') {
    const ms = /within (\d+) ms/.exec(failure.detail)?.[1];
    return ms ? `timed out after ${Number(ms) / 1000} s` : 'timed out';
  }
  if (failure.kind === 'protocol_error') return failure.detail.startsWith('response larger than') ? failure.detail : 'protocol error';
  if (failure.detail.startsWith('connect timeout')) return 'connect timed out';
  const code = /^([A-Z_]+):/.exec(failure.detail)?.[1] ?? '';
  return TRANSPORT_REASONS[code] ?? 'connection failed';
}

const TRANSPORT_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found (DNS lookup failed)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  CLIENT_CLOSED: 'connection closed',
  UND_ERR_CLOSED: 'connection closed',
  UND_ERR_DESTROYED: 'connection closed',
  UND_ERR_SOCKET: 'connection closed by the upstream',
  EPIPE: 'connection closed by the upstream',
  CERT_HAS_EXPIRED: 'TLS certificate expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'TLS certificate not trusted',
  SELF_SIGNED_CERT_IN_CHAIN: 'TLS certificate not trusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate not trusted',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate does not match the host',
};

/** Errors raised while connecting: the request was never written. */
const CONNECT_ERRORS = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'CONNECT_TIMEOUT', 'CLIENT_CLOSED', 'UND_ERR_CLOSED']);

/** undici's errors (call-pool.ts), node:http's (http-get.ts) and the two bounds' of each, in one set of outcomes. */
function classifyTransportError(error: unknown, deadlinePassed: boolean, timeoutMs: number, maxBytes: number): TransportFailure {
  const code = (error as { code?: string })?.code ?? '';
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'CONNECT_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') return { kind: 'unreachable', detail: `connect timeout: ${message}`, beforeSend: true };
  if (deadlinePassed) return { kind: 'timeout', detail: `no complete answer within ${timeoutMs} ms` };
  if (code === 'RESPONSE_TOO_LARGE' || code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE')
    return { kind: 'protocol_error', status: 0, detail: `response larger than ${maxBytes} bytes` };
  const cause = (error as { cause?: { code?: string } })?.cause?.code;
  return { kind: 'unreachable', detail: `${code || cause || 'error'}: ${message}`, beforeSend: CONNECT_ERRORS.has(code) || CONNECT_ERRORS.has(cause ?? '') };
}
