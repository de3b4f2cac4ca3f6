/**
 * The keep-alive pool of one upstream's `tools/call` POSTs, on undici's public API: a `Pool` per upstream and its
 * `dispatch` (undici is the library Node's own `fetch` is built on, made for HTTP/1.1 client pools). `dispatch` with a
 * handler of the call's own (`PostHandler`) rather than `request`: the answer is collected as undici delivers it,
 * where `request` streams it through a `Readable` per call, ~3 KB of the call's garbage (bench/README.md, issue 39).
 *
 * Why undici rather than node:http's Agent: node:http's client work per call (a `ClientRequest`, the agent's
 * `addRequest`, header storing, an `IncomingMessage`) was ~45 µs of a ~220 µs call and much of its garbage
 * (bench/README.md, "Issue 33: the verdict" and "The OXP client on undici (issue 39)"); undici writes each request on
 * its kept-alive socket itself.
 *
 * A pooled connection can be dead by the time a request goes out on it: real OXP servers close connections the
 * client still holds — uvicorn a few ms after a crashing tool's 500 (once the traceback is logged), or after its
 * unannounced 5 s keep-alive timeout. The request then meets a reset or an end of stream before any answer. When that
 * happens on a connection that had carried an answer before, and before this request's answer began, the request is
 * sent again at once on a fresh connection of its own (`retriedOnFreshConnection`), with the same body and so the
 * same `call_id`, the OXP idempotency key: the server never read it (it was closing), and a server that did would
 * recognise the `call_id`. Go's net/http does the same for a request carrying an idempotency key. A failure on a
 * fresh connection, or after an answer began, is the caller's to classify and retry (retry-policy.ts).
 * undici's own keep-alive timeout (4 s, or the server's `Keep-Alive: timeout` hint less 1 s) is shorter than
 * uvicorn's and Node's unannounced 5 s, so most of those closes are never met at all.
 *
 * undici is loaded when the first call needs it or by the face's warm-up (`loadCallPool`), never on the start-up
 * path: importing it costs about as much as the MCP SDK (bench/README.md, issue 39).
 */
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import type * as Undici from 'undici';
import type { CallAbort } from './call-abort.js';

export interface CallPoolOptions {
  /** Keep-alive connections to the upstream. */
  connections: number;
  connectTimeoutMs: number;
  maxResponseBytes: number;
}

export interface PostResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

let undici: typeof Undici | undefined;

/**
 * Loads undici now (the face's warm-up, or the bridge before its first call), so that no call waits for it. A dynamic
 * import, so that `npm run build` bundles undici into a chunk of its own (scripts/build.mjs): as installed, its ~80
 * CommonJS files cost Node a resolve, a read and a compile each, ~400 M instructions against ~260 M bundled
 * (bench/README.md, issue 39). What is used before it is in (a pool made first) requires it as installed.
 */
export async function loadCallPool(): Promise<void> {
  const loaded = (await import('undici')) as typeof Undici & { default?: typeof Undici };
  undici ??= loaded.default ?? loaded;
}

/** undici's classes: loaded by loadCallPool, else required now. */
function library(): typeof Undici {
  return (undici ??= createRequire(import.meta.url)('undici') as typeof Undici);
}

/** What a dead pooled connection looks like: a reset, or the stream ending before an answer. */
const STALE_CONNECTION_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET']);

/** Bytes the connection had read when it failed: more than 0, it had carried an answer before (undici's `SocketError` says so itself). */
const BYTES_READ = Symbol('bytesRead');

/** Set on a failure met while reading an answer's body. */
const ANSWER_BEGAN = Symbol('answerBegan');

type SocketFailure = Error & { code?: string; socket?: { bytesRead?: number }; [BYTES_READ]?: number; [ANSWER_BEGAN]?: true };

export class CallPool {
  private readonly pool: Undici.Pool;
  private readonly connector: Undici.buildConnector.connector;
  private readonly origin: URL;
  private readonly path: string;
  private readonly dispatcherOptions: Undici.Pool.Options;
  private inFlight = 0;
  private idle: (() => void) | undefined;
  /** Requests sent again on a fresh connection after a pooled one turned out dead (for tests and metrics). */
  retriedOnFreshConnection = 0;

  constructor(url: URL, options: CallPoolOptions) {
    const undici = library();
    this.origin = new URL(url.origin);
    this.path = `${url.pathname}${url.search}`;
    const connect = undici.buildConnector({ timeout: options.connectTimeoutMs });
    // Every socket notes on its errors how much it had read: a reset carries no socket details of its own.
    this.connector = (opts, callback) =>
      connect(opts, (error, socket) => {
        if (error) return callback(error, null);
        socket.on('error', noteBytesRead);
        callback(null, socket);
      });
    this.dispatcherOptions = {
      connect: this.connector,
      maxResponseSize: options.maxResponseBytes,
      // The call's own deadline (client.ts) bounds the wait for headers and body; undici's would cut a long tool short.
      headersTimeout: 0,
      bodyTimeout: 0,
    };
    this.pool = new undici.Pool(this.origin, { ...this.dispatcherOptions, connections: options.connections });
  }

  /** Calls waiting for a connection now: every one of `connections` is busy (undici's own count, read when asked). */
  get queued(): number {
    return this.pool.stats.queued;
  }

  /**
   * POSTs `body`; resolves with what `outcome` makes of the answer or of the transport's failure (`abort.reason` once
   * `abort` fires), and ends `abort` (`done`) however it went. `onWait`, when given, is told `true` if the call has
   * to wait for a connection (all `connections` busy) and `false` once it has one.
   */
  async post<R>(body: string, headers: Record<string, string>, abort: CallAbort, outcome: PostOutcome<R>, onWait?: ConnectionWait): Promise<R> {
    this.inFlight += 1;
    try {
      let response: PostResponse;
      try {
        response = await this.send(this.pool, body, headers, abort, onWait);
      } catch (error) {
        if (abort.aborted || !isStaleConnection(error)) return outcome.failed(error, abort);
        this.retriedOnFreshConnection += 1;
        // A connection of its own, closed after the answer: a second pooled one may be as dead as the first.
        const { Client } = library();
        const fresh = new Client(this.origin, this.dispatcherOptions);
        try {
          response = await this.send(fresh, body, headers, abort);
        } catch (again) {
          return outcome.failed(again, abort);
        } finally {
          void fresh.close().catch(() => undefined);
        }
      }
      return outcome.answered(response, abort);
    } finally {
      abort.done();
      if (--this.inFlight === 0) this.idle?.();
    }
  }

  /** Closes the pool once the requests under way have finished. */
  async close(): Promise<void> {
    if (this.inFlight > 0) await new Promise<void>((resolve) => (this.idle = resolve));
    await this.pool.close();
  }

  /** Closes every connection now; requests under way fail. */
  destroy(): void {
    void this.pool.destroy().catch(() => undefined);
  }

  private send(dispatcher: Undici.Dispatcher, body: string, headers: Record<string, string>, abort: CallAbort, onWait?: ConnectionWait): Promise<PostResponse> {
    return new Promise((resolve, reject) => {
      // The caller's abort reason as it is (a deadline's TimeoutError, the caller's own reason): client.ts classifies it.
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      if (abort.aborted) return reject(abort.reason);
      const handler = new PostHandler(resolve, reject, abort);
      // Queued by the pool (every connection busy): its queue grew with this call. Asked only when someone listens.
      const queuedBefore = onWait && dispatcher === this.pool ? this.pool.stats.queued : undefined;
      dispatcher.dispatch({ origin: this.origin, path: this.path, method: 'POST', headers, body }, handler);
      if (onWait && queuedBefore !== undefined && this.pool.stats.queued > queuedBefore) {
        onWait(true);
        handler.onStart = () => onWait(false);
      }
    });
  }
}

/** What a POST comes to, answered or failed (client.ts: the decoded answer, the classified failure); `failed` may throw. */
export interface PostOutcome<R> {
  answered(response: PostResponse, abort: CallAbort): R;
  failed(error: unknown, abort: CallAbort): R;
}

/** Told whether a call waits for a connection to its upstream (`true`) and when it got one (`false`). */
export type ConnectionWait = (waiting: boolean) => void;

/**
 * One POST's answer, collected as undici delivers it (its documented `DispatchHandler`). An abort rejects the call at
 * once with the abort's reason, and ends the request at undici's end as soon as it has started (a call still waiting
 * for a connection is ended when it gets one).
 */
class PostHandler implements Undici.Dispatcher.DispatchHandler {
  private controller: Undici.Dispatcher.DispatchController | undefined;
  private status = 0;
  private headers: PostResponse['headers'] = {};
  private readonly chunks: Buffer[] = [];
  private answered = false;
  private settled = false;
  /** Told when the request gets its connection (the pool had queued it). */
  onStart: (() => void) | undefined;

  constructor(
    private readonly resolve: (response: PostResponse) => void,
    private readonly reject: (error: unknown) => void,
    private readonly abort: CallAbort,
  ) {
    abort.addEventListener('abort', this.onAbort);
  }

  onRequestStart(controller: Undici.Dispatcher.DispatchController): void {
    this.onStart?.();
    this.onStart = undefined;
    if (this.abort.aborted) return controller.abort(this.abort.reason as Error);
    this.controller = controller;
  }

  onResponseStart(_controller: Undici.Dispatcher.DispatchController, statusCode: number, headers: PostResponse['headers']): void {
    if (statusCode < 200) return; // 1xx: informational, the answer is still to come
    this.answered = true;
    this.status = statusCode;
    this.headers = headers;
  }

  onResponseData(_controller: Undici.Dispatcher.DispatchController, chunk: Buffer): void {
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    const { chunks } = this;
    const body = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
    if (this.settle()) this.resolve({ status: this.status, headers: this.headers, body });
  }

  onResponseError(_controller: Undici.Dispatcher.DispatchController, error: Error): void {
    // The answer had begun: whatever broke it, the server read the call.
    if (this.answered) Object.assign(error, { [ANSWER_BEGAN]: true });
    if (this.settle()) this.reject(error);
  }

  private readonly onAbort = (): void => {
    if (this.settle()) this.reject(this.abort.reason);
    this.controller?.abort(this.abort.reason as Error);
  };

  /** True the first time: the call is answered once, whichever end comes first. */
  private settle(): boolean {
    if (this.settled) return false;
    this.settled = true;
    this.abort.removeEventListener('abort', this.onAbort);
    return true;
  }
}

function noteBytesRead(this: Socket, error: SocketFailure): void {
  error[BYTES_READ] ??= this.bytesRead;
}

/** A failure before any answer on a connection that had answered before: it was dead when the request went out. */
function isStaleConnection(error: unknown): boolean {
  const failure = error as SocketFailure | undefined;
  if (!failure || failure[ANSWER_BEGAN] || !STALE_CONNECTION_CODES.has(failure.code ?? '')) return false;
  return (failure.socket?.bytesRead ?? failure[BYTES_READ] ?? 0) > 0;
}
