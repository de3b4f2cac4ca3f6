/**
 * Per-key counters in this process: a token bucket and an in-flight count per
 * key, kept in a bounded LRU so a flood of distinct keys cannot grow memory
 * (an evicted key starts afresh). Both the per-client admission of the MCP
 * face (forward/face/client-limits.ts) and the memory limit store
 * (calls/limits/memory-limit-store.ts) count here; calls/limits/redis-script.ts is
 * the same arithmetic run inside Redis.
 */
import { LRUCache } from 'lru-cache';
import { capacityOf, inFlightRefusal, rateRefusal, tokensPerMs, type CountRefusal, type LimitSpec } from './limit-spec.js';

/** One key's state. Holders keep a reference to it: a release after eviction changes nothing that is still counted. */
export interface CounterState {
  tokens: number;
  updatedAt: number;
  inFlight: number;
}

export class LocalCounters {
  private readonly states: LRUCache<string, CounterState>;

  constructor(
    maxKeys = 100_000,
    private readonly now: () => number = Date.now,
  ) {
    // Bounded by maxSize (each key counts 1), not max: with max, lru-cache fills arrays of maxKeys slots up front,
    // ~126 M instructions for 100,000 (callgrind, bench/README.md, issue 39): paid at start-up by the memory limit
    // store and by the first MCP request by the face's admission. This way its storage grows with the keys seen.
    this.states = new LRUCache<string, CounterState>({ maxSize: maxKeys, sizeCalculation: () => 1 });
  }

  /** The key's state, created full (a whole burst available) on first sight. */
  stateOf(key: string, spec: LimitSpec): CounterState {
    let state = this.states.get(key);
    if (!state) {
      state = { tokens: capacityOf(spec), updatedAt: this.now(), inFlight: 0 };
      this.states.set(key, state);
    }
    return state;
  }

  /**
   * Takes `count` requests from a key's allowance, all or none: the in-flight
   * cap first (a refusal there spends no token), then the bucket. `scope` ends
   * the refusal's sentence (' per client').
   */
  take(state: CounterState, count: number, spec: LimitSpec, scope: string): CountRefusal | undefined {
    if (spec.maxInFlight > 0 && state.inFlight + count > spec.maxInFlight) return inFlightRefusal(spec, scope, count);
    if (spec.requestsPerMinute > 0) {
      const now = this.now();
      state.tokens = Math.min(capacityOf(spec), state.tokens + (now - state.updatedAt) * tokensPerMs(spec));
      state.updatedAt = now;
      if (state.tokens < count) return rateRefusal(spec, scope, state.tokens, count);
      state.tokens -= count;
    }
    state.inFlight += count;
    return undefined;
  }

  /** Gives back `count` in-flight slots taken from `state`. */
  give(state: CounterState, count: number): void {
    state.inFlight -= count;
  }
}
