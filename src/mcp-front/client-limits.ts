/**
 * Per-client admission: a token-bucket rate limit and a cap on concurrent
 * requests. A client is its authenticated subject, else its address. State
 * lives in a bounded LRU, so a flood of distinct clients cannot grow memory.
 *
 * The unit is one JSON-RPC request, not one HTTP request: an admission made
 * for an HTTP request is charged again for every further message of a batch
 * (`charge`), so a batch of 50 tools/call costs what 50 separate calls cost.
 */
import { LRUCache } from 'lru-cache';

export interface ClientLimitsConfig {
  /** Sustained requests per minute per client; 0 = no limit. */
  requestsPerMinute: number;
  /** Bucket size: requests a client may burst above the sustained rate. */
  burst: number;
  /** Concurrent requests per client; 0 = no limit. */
  maxInFlight: number;
}

interface ClientState {
  tokens: number;
  updatedAt: number;
  inFlight: number;
}

export interface Refused {
  ok: false;
  reason: 'rate_limited' | 'too_many_in_flight';
  retryAfterSeconds: number;
  message: string;
}

export interface Admitted {
  ok: true;
  /** Gives back every request this admission holds (idempotent). */
  release: () => void;
  /** Charges `count` more requests (a batch's further messages) to this admission, all or nothing. */
  charge: (count: number) => Refused | undefined;
}

export type Admission = Admitted | Refused;

export class ClientLimits {
  private readonly clients = new LRUCache<string, ClientState>({ max: 100_000 });

  constructor(
    private readonly config: ClientLimitsConfig,
    private readonly now: () => number = Date.now,
  ) {}

  get enabled(): boolean {
    return this.config.requestsPerMinute > 0 || this.config.maxInFlight > 0;
  }

  admit(client: string): Admission {
    let state = this.clients.get(client);
    if (!state) {
      state = { tokens: Math.max(1, this.config.burst), updatedAt: this.now(), inFlight: 0 };
      this.clients.set(client, state);
    }
    const refused = this.take(state, 1);
    if (refused) return refused;
    const held = state;
    let holding = 1;
    return {
      ok: true,
      release: () => {
        held.inFlight -= holding;
        holding = 0;
      },
      charge: (count) => {
        if (count <= 0 || holding === 0) return undefined;
        const more = this.take(held, count);
        if (!more) holding += count;
        return more;
      },
    };
  }

  /** Takes `count` requests from a client's allowance, or none of them. */
  private take(state: ClientState, count: number): Refused | undefined {
    const { requestsPerMinute, burst, maxInFlight } = this.config;
    if (maxInFlight > 0 && state.inFlight + count > maxInFlight) {
      return {
        ok: false,
        reason: 'too_many_in_flight',
        retryAfterSeconds: 1,
        message: `Too many concurrent requests: at most ${maxInFlight} per client${count > 1 ? ` (this batch holds ${count} more)` : ''}.`,
      };
    }
    if (requestsPerMinute > 0) {
      const now = this.now();
      const perMs = requestsPerMinute / 60_000;
      const capacity = Math.max(1, burst);
      state.tokens = Math.min(capacity, state.tokens + (now - state.updatedAt) * perMs);
      state.updatedAt = now;
      if (state.tokens < count) {
        const message =
          count > capacity
            ? `Rate limit exceeded: a batch of ${count + 1} requests exceeds the burst of ${capacity} per client.`
            : `Rate limit exceeded: ${requestsPerMinute} requests per minute per client.`;
        return {
          ok: false,
          reason: 'rate_limited',
          retryAfterSeconds: Math.max(1, Math.ceil((Math.min(count, capacity) - state.tokens) / perMs / 1000)),
          message,
        };
      }
      state.tokens -= count;
    }
    state.inFlight += count;
    return undefined;
  }
}
