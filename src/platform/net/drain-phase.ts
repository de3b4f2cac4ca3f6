/**
 * Where a listening server is in an orderly stop (src/config/shutdown.ts says why it has these steps), shared by the
 * MCP front and the oxp-server face: serving; then draining (readiness answers 503, requests are still served, the
 * listener still accepts); then, once the drain delay has passed, refusing (new requests get 503 with Retry-After
 * and `Connection: close`) until the process exits. The listener accepts throughout: a connection refused by a
 * closed listener is an error to the caller, where a 503 with Retry-After is an answer a client or proxy retries on.
 */
import type { ServerResponse } from 'node:http';

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
   * Once refusing, every response closes its connection: a client or proxy keeping connections alive takes its next
   * request elsewhere rather than to a process about to exit.
   */
  closeConnectionsOf(res: ServerResponse): void {
    if (this.phase === 'refusing') res.setHeader('connection', 'close');
  }
}

/** The headers of a refusal while refusing. */
export function drainRefusalHeaders(): Record<string, string> {
  return { 'retry-after': String(DRAIN_RETRY_AFTER_SECONDS), connection: 'close' };
}
