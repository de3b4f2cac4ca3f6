/**
 * Per-client admission: a token-bucket rate limit and a cap on concurrent
 * requests. A client is its authenticated subject, else its address. State
 * lives in a bounded LRU, so a flood of distinct clients cannot grow memory.
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

export type Admission = { ok: true; release: () => void } | { ok: false; reason: 'rate_limited' | 'too_many_in_flight'; retryAfterSeconds: number; message: string };

export class ClientLimits {
  private readonly clients = new LRUCache<string, ClientState>({ max: 100_000 });

  constructor(private readonly config: ClientLimitsConfig, private readonly now: () => number = Date.now) {}

  get enabled(): boolean {
    return this.config.requestsPerMinute > 0 || this.config.maxInFlight > 0;
  }

  admit(client: string): Admission {
    const { requestsPerMinute, burst, maxInFlight } = this.config;
    const now = this.now();
    let state = this.clients.get(client);
    if (!state) {
      state = { tokens: Math.max(1, burst), updatedAt: now, inFlight: 0 };
      this.clients.set(client, state);
    }
    if (maxInFlight > 0 && state.inFlight >= maxInFlight) {
      return { ok: false, reason: 'too_many_in_flight', retryAfterSeconds: 1, message: `Too many concurrent requests: at most ${maxInFlight} per client.` };
    }
    if (requestsPerMinute > 0) {
      const perMs = requestsPerMinute / 60_000;
      state.tokens = Math.min(Math.max(1, burst), state.tokens + (now - state.updatedAt) * perMs);
      state.updatedAt = now;
      if (state.tokens < 1) {
        return { ok: false, reason: 'rate_limited', retryAfterSeconds: Math.max(1, Math.ceil((1 - state.tokens) / perMs / 1000)), message: `Rate limit exceeded: ${requestsPerMinute} requests per minute per client.` };
      }
      state.tokens -= 1;
    }
    state.inFlight += 1;
    const held = state;
    let released = false;
    return {
      ok: true,
      release: () => {
        if (!released) {
          released = true;
          held.inFlight -= 1;
        }
      },
    };
  }
}
