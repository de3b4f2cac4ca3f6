/**
 * The keep-alive pool of one upstream's `tools/call` POSTs, on node:http(s)'s own Agent (public API only).
 *
 * A pooled connection can be dead by the time a request goes out on it: real OXP servers close connections the
 * client still holds — uvicorn a few ms after a crashing tool's 500 (once the traceback is logged), or after its
 * unannounced 5 s keep-alive timeout. The request then meets a reset or an end of stream before any answer. When that
 * happens on a reused connection before any byte of an answer arrived, the request is sent again at once on a fresh
 * connection (`retriedOnFreshConnection`), with the same body and so the same `call_id`, the OXP idempotency key:
 * the server never read it (it was closing), and a server that did would recognise the `call_id`. Go's net/http
 * does the same for a request carrying an idempotency key; node:http marks the reused socket (`reusedSocket`) for it.
 * A failure on a fresh connection, or after an answer began, is the caller's to classify and retry (retry-policy.ts).
 *
 * Why node:http rather than undici: the same pool through public API only (undici's lean load needed its internal
 * paths), the `reusedSocket` mark the retry rests on, and no second HTTP stack to load (bench/README.md, issue 24).
 */
import type * as Http from 'node:http';
import { httpModule } from '../../platform/net/node-http.js';
import type { CallAbort } from './call-abort.js';

export interface CallPoolOptions {
  /** Keep-alive connections to the upstream. */
  connections: number;
  connectTimeoutMs: number;
  maxResponseBytes: number;
  /** How long an idle connection is kept. */
  idleTimeoutMs?: number;
}

export interface PostResponse {
  status: number;
  headers: Http.IncomingHttpHeaders;
  body: string;
}

/** Failures node:http has no code for, with codes client.ts classifies as it classifies the system's. */
export class CallPoolError extends Error {
  constructor(
    readonly code: 'CONNECT_TIMEOUT' | 'RESPONSE_TOO_LARGE',
    message: string,
  ) {
    super(message);
    this.name = 'CallPoolError';
  }
}

/** What a dead pooled connection looks like: a reset, or the stream ending before an answer ("socket hang up"). */
const STALE_CONNECTION_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

export class CallPool {
  private readonly agent: Http.Agent;
  private readonly http: typeof Http;
  private readonly target: Http.RequestOptions;
  /** The agent's key for this upstream: its queue of requests waiting for a connection is `agent.requests[name]`. */
  private readonly name: string;
  private inFlight = 0;
  private idle: (() => void) | undefined;
  /** Requests sent again on a fresh connection after a pooled one turned out dead (for tests and metrics). */
  retriedOnFreshConnection = 0;

  constructor(
    url: URL,
    private readonly options: CallPoolOptions,
  ) {
    this.http = httpModule(url.protocol === 'https:' ? 'https:' : 'http:');
    // lifo (Node's default): the most recently used connection first, the least likely to have been closed as idle.
    this.agent = new this.http.Agent({
      keepAlive: true,
      maxSockets: options.connections,
      maxFreeSockets: options.connections,
      timeout: options.idleTimeoutMs ?? 30_000,
      scheduling: 'lifo',
    });
    this.target = {
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method: 'POST',
    };
    // node:http names a request's queue after its `host`, which it takes from `hostname`.
    this.name = this.agent.getName({ ...this.target, host: this.target.hostname });
  }

  /**
   * Calls waiting for a connection now: every one of `connections` is busy. Read from the agent's own queue (public,
   * documented API) when asked — nothing is counted per call. A queued request aborted meanwhile stays in that queue
   * until a connection frees, so it is left out here.
   */
  get queued(): number {
    let waiting = 0;
    for (const req of this.agent.requests[this.name] ?? []) if (!req.destroyed) waiting++;
    return waiting;
  }

  /**
   * POSTs `body`; rejects with the transport's error (or `abort.reason` once `abort` fires). `onWait`, when given, is
   * told `true` if the call has to wait for a connection (all `connections` busy) and `false` once it has one.
   */
  async post(body: string, headers: Record<string, string>, abort: CallAbort, onWait?: ConnectionWait): Promise<PostResponse> {
    this.inFlight += 1;
    try {
      headers['content-length'] = String(Buffer.byteLength(body));
      try {
        return await this.send(body, headers, abort, this.agent, onWait);
      } catch (error) {
        if (!(error instanceof StaleConnection) || abort.aborted) throw error instanceof StaleConnection ? error.cause : error;
        this.retriedOnFreshConnection += 1;
        // A connection of its own, closed after the answer: a second pooled one may be as dead as the first.
        return await this.send(body, headers, abort, false).catch((e: unknown) => {
          throw e instanceof StaleConnection ? e.cause : e;
        });
      }
    } finally {
      if (--this.inFlight === 0) this.idle?.();
    }
  }

  /** Closes the pool once the requests under way have finished. */
  async close(): Promise<void> {
    if (this.inFlight > 0) await new Promise<void>((resolve) => (this.idle = resolve));
    this.agent.destroy();
  }

  /** Closes every connection now; requests under way fail. */
  destroy(): void {
    this.agent.destroy();
  }

  /** Whether `req` waits in the agent's queue; if so `onWait(true)` now and `onWait(false)` when it gets its connection. */
  private watchQueue(req: Http.ClientRequest, agent: Http.Agent, onWait: ConnectionWait): void {
    const queue = agent.requests[this.name];
    if (queue === undefined || queue[queue.length - 1] !== req) return;
    onWait(true);
    req.once('socket', () => onWait(false));
  }

  private send(body: string, headers: Record<string, string>, abort: CallAbort, agent: Http.Agent | false, onWait?: ConnectionWait): Promise<PostResponse> {
    const { connectTimeoutMs, maxResponseBytes } = this.options;
    return new Promise((resolve, reject) => {
      let answered = false;
      const req = this.http.request({ ...this.target, headers, agent }, (res) => {
        answered = true;
        const declared = Number(res.headers['content-length']);
        if (declared > maxResponseBytes) return void req.destroy(tooLarge(maxResponseBytes));
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxResponseBytes) req.destroy(tooLarge(maxResponseBytes));
          else chunks.push(chunk);
        });
        res.on('error', fail);
        res.on('end', () => {
          abort.off('abort', onAbort);
          const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text });
        });
      });
      function fail(error: Error): void {
        abort.off('abort', onAbort);
        const code = (error as { code?: string }).code ?? '';
        if (req.reusedSocket && !answered && !abort.aborted && STALE_CONNECTION_CODES.has(code)) reject(new StaleConnection(error));
        // The caller's abort reason as it is (a deadline's TimeoutError, the caller's own reason): client.ts classifies it.
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
        else reject(abort.aborted ? abort.reason : error);
      }
      const onAbort = () => req.destroy(abort.reason instanceof Error ? abort.reason : new Error(String(abort.reason)));
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- as above
      if (abort.aborted) return void reject(abort.reason);
      abort.once('abort', onAbort);
      req.on('error', fail);
      // Queued by the agent (no free connection, none may be opened): the request is the last of its queue.
      if (onWait && agent) this.watchQueue(req, agent, onWait);
      // node:http's `timeout` is an idle timeout; the connect timeout is the handshake's alone (TCP, and TLS for https).
      req.on('socket', (socket) => {
        if (!socket.connecting) return;
        const timer = setTimeout(() => req.destroy(new CallPoolError('CONNECT_TIMEOUT', `no connection within ${connectTimeoutMs} ms`)), connectTimeoutMs);
        timer.unref();
        socket.once(this.target.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(timer));
        socket.once('close', () => clearTimeout(timer));
      });
      req.end(body);
    });
  }
}

/** Told whether a call waits for a connection to its upstream (`true`) and when it got one (`false`). */
export type ConnectionWait = (waiting: boolean) => void;

/** A pooled connection that was dead before any answer: the request may go again on a fresh one. */
class StaleConnection extends Error {
  constructor(override readonly cause: Error) {
    super(cause.message);
  }
}

function tooLarge(maxBytes: number) {
  return new CallPoolError('RESPONSE_TOO_LARGE', `response larger than ${maxBytes} bytes`);
}
