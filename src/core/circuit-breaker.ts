/**
 * A per-upstream circuit breaker. It opens after `failureThreshold`
 * consecutive failures that say the server is down — it cannot be reached,
 * does not answer in time, or a proxy in front of it says so (502/503/504) —
 * never on what one tool does (a tool error, a tool's 500: the other tools
 * of the server still work), answers fast while open, lets one trial call
 * through after `openMs` (half-open), and closes on that call's success.
 * A trial still running after another `openMs` (a long call, a task's: up to
 * an hour) lets one more through: a slow trial must not refuse every call for
 * its whole length.
 * Time is injected, so the state machine is pure and testable.
 */
import type { OxpCallOutcome } from './oxp-wire.js';

export type CircuitState = 'closed' | 'open' | 'half_open';

export interface CircuitOptions {
  failureThreshold: number;
  openMs: number;
}

/** Statuses that say the server (or what is in front of it) is down, not that one tool failed. */
const SERVER_DOWN_STATUS = new Set([502, 503, 504]);

/**
 * Outcomes that say the upstream itself is unhealthy. `unreachable` comes after the OXP client's own fresh-connection
 * retry (call-pool.ts), so a pooled connection the server had closed never counts.
 */
export function isTransportFailure(outcome: OxpCallOutcome): boolean {
  return outcome.kind === 'unreachable' || outcome.kind === 'timeout' || (outcome.kind === 'unavailable' && SERVER_DOWN_STATUS.has(outcome.status));
}

export class CircuitBreaker {
  private failures = 0;
  private openedAt = 0;
  private trialInFlight = false;
  private trialStartedAt = 0;
  private stateValue: CircuitState = 'closed';

  constructor(
    private readonly options: CircuitOptions,
    private readonly now: () => number = Date.now,
  ) {}

  get state(): CircuitState {
    if (this.stateValue === 'open' && this.now() - this.openedAt >= this.options.openMs) this.stateValue = 'half_open';
    return this.stateValue;
  }

  /** Milliseconds until a trial call will be allowed (0 when calls may go now). */
  get retryAfterMs(): number {
    return this.state === 'open' ? Math.max(0, this.options.openMs - (this.now() - this.openedAt)) : 0;
  }

  /** Whether a call may go upstream now. In half-open state, one trial at a time, or one more every `openMs`. */
  tryAcquire(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'half_open' && (!this.trialInFlight || this.now() - this.trialStartedAt >= this.options.openMs)) {
      this.trialInFlight = true;
      this.trialStartedAt = this.now();
      return true;
    }
    return false;
  }

  record(outcome: OxpCallOutcome): void {
    const failed = isTransportFailure(outcome);
    if (this.stateValue === 'half_open' || this.trialInFlight) {
      this.trialInFlight = false;
      if (failed) this.open();
      else this.close();
      return;
    }
    if (!failed) {
      this.failures = 0;
      return;
    }
    this.failures += 1;
    if (this.failures >= this.options.failureThreshold) this.open();
  }

  /** A call that was let through but never finished (cancelled): free the trial slot. */
  release(): void {
    this.trialInFlight = false;
  }

  private open(): void {
    this.stateValue = 'open';
    this.openedAt = this.now();
    this.failures = 0;
  }

  private close(): void {
    this.stateValue = 'closed';
    this.failures = 0;
  }
}
