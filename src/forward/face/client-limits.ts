/**
 * Per-client admission: a token-bucket rate limit and a cap on concurrent
 * requests. A client is its authenticated subject, else its address. The
 * counting is platform/counters/local-counters.ts's (a bounded LRU, so a flood of
 * distinct clients cannot grow memory), shared with the memory limit store.
 *
 * The unit is one JSON-RPC request, not one HTTP request: an admission made
 * for an HTTP request is charged again for every further message of a batch
 * (`charge`), so a batch of 50 tools/call costs what 50 separate calls cost.
 */
import { LocalCounters, type CounterState } from '../../platform/counters/local-counters.js';
import type { CountRefusal, LimitSpec } from '../../platform/counters/limit-spec.js';

/** Per client: sustained requests per minute (0 = no limit), the burst above it, concurrent requests (0 = no limit). */
export type ClientLimitsConfig = LimitSpec;

export type Refused = CountRefusal;

export interface Admitted {
  ok: true;
  /** Gives back every request this admission holds (idempotent). */
  release: () => void;
  /** Charges `count` more requests (a batch's further messages) to this admission, all or nothing. */
  charge: (count: number) => Refused | undefined;
}

export type ClientAdmission = Admitted | Refused;

const SCOPE = ' per client';

export class ClientLimits {
  private readonly counters: LocalCounters;

  constructor(
    private readonly config: ClientLimitsConfig,
    now: () => number = Date.now,
  ) {
    this.counters = new LocalCounters(100_000, now);
  }

  get enabled(): boolean {
    return this.config.requestsPerMinute > 0 || this.config.maxInFlight > 0;
  }

  admit(client: string): ClientAdmission {
    const state = this.counters.stateOf(client, this.config);
    const refused = this.take(state, 1);
    if (refused) return refused;
    let holding = 1;
    return {
      ok: true,
      release: () => {
        this.counters.give(state, holding);
        holding = 0;
      },
      charge: (count) => {
        if (count <= 0 || holding === 0) return undefined;
        const more = this.take(state, count);
        if (!more) holding += count;
        return more;
      },
    };
  }

  private take(state: CounterState, count: number): Refused | undefined {
    return this.counters.take(state, count, this.config, SCOPE);
  }
}
