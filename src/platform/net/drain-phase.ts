/**
 * Where a listening server is in an orderly stop (src/config/shutdown.ts says why it has these steps), shared by the
 * MCP front and the oxp-server face: serving; then draining (readiness answers 503, requests are still served, each
 * answer closes its connection, the listener still accepts); then, once the drain delay has passed, refusing (new
 * requests get 503 with Retry-After and `Connection: close`) until the process exits. The listener accepts throughout: a connection refused by a
 * closed listener is an error to the caller, where a 503 with Retry-After is an answer a client or proxy retries on.
 */
import type { ServerResponse } from 'node:http';

/**
 * How long the close after a drain waits for requests that arrived as it ended (a proxy's keep-alive connection
 * reused at that moment, whose request would otherwise be cut off unanswered: nginx answers such a POST 502 rather
 * than send it elsewhere). Each is answered 503 at once; the wait ends as soon as none is left.
 */
export const LAST_REQUESTS_SETTLE_MS = 250;

/** What a refused request's `Retry-After` says: another instance answers at once; this one is going away. */
export const DRAIN_RETRY_AFTER_SECONDS = 1;

export class DrainPhase {
  private phase: 'serving' | 'draining' | 'refusing' = 'serving';
  private timer: NodeJS.Timeout | undefined;
  private delayOver: (() => void) | undefined;

  /** Not ready any more (readiness answers 503): from the stop's start. */
  get draining(): boolean {
    return this.phase !== 'serving';
  }

  /** New requests are refused: once the drain delay has passed. */
  get refusing(): boolean {
    return this.phase === 'refusing';
  }

  /** Starts the stop (once): draining now, refusing after `delayMs`; resolves then. */
  begin(delayMs: number): Promise<void> {
    if (this.phase !== 'serving') return Promise.resolve();
    this.phase = 'draining';
    if (delayMs <= 0) return Promise.resolve(this.refuseNow());
    return new Promise((resolve) => {
      this.delayOver = resolve;
      this.timer = setTimeout(() => this.refuseNow(), delayMs);
    });
  }

  /** Refuses from now on (the delay cut short: the stop waits no more). */
  refuseNow(): void {
    clearTimeout(this.timer);
    this.phase = 'refusing';
    this.delayOver?.();
    this.delayOver = undefined;
  }

  /**
   * From the stop's start, every response closes its connection: a load balancer's endpoint removal changes where new
   * connections go, not the keep-alive ones a client or proxy already holds, so those are closed after each answer
   * and the next request is sent through the balancer again (here while the endpoint is still listed, elsewhere once
   * it is not).
   */
  closeConnectionsOf(res: ServerResponse): void {
    if (this.phase !== 'serving') res.setHeader('connection', 'close');
  }
}

/**
 * `headers` for `res.writeHead`, less a `connection` of their own when the response already carries one (set by
 * `closeConnectionsOf`): writeHead's would win, and the SDK's stream headers say `keep-alive`.
 */
export function keepingConnectionClose<T extends Record<string, unknown>>(res: ServerResponse, headers: T): T {
  if (!res.hasHeader('connection') || !Object.keys(headers).some((name) => name.toLowerCase() === 'connection')) return headers;
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'connection')) as T;
}

/** The headers of a refusal while refusing. */
export function drainRefusalHeaders(): Record<string, string> {
  return { 'retry-after': String(DRAIN_RETRY_AFTER_SECONDS), connection: 'close' };
}
