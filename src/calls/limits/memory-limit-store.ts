/**
 * The limit store of one process: counters in a bounded LRU
 * (local-counters.ts). Each replica enforces its own copy of every limit;
 * store.redis shares them (redis-limit-store.ts).
 */
import { LocalCounters } from '../../platform/counters/local-counters.js';
import { admittedFreely, limitsNothing, type LimitSpec, type LimitStore, type LimitVerdict } from './limit-types.js';

export class MemoryLimitStore implements LimitStore {
  readonly kind = 'memory';
  private readonly counters: LocalCounters;

  constructor(maxKeys = 100_000, now: () => number = Date.now) {
    this.counters = new LocalCounters(maxKeys, now);
  }

  async acquire(key: string, spec: LimitSpec): Promise<LimitVerdict> {
    if (limitsNothing(spec)) return admittedFreely;
    const state = this.counters.stateOf(key, spec);
    const refused = this.counters.take(state, 1, spec, '');
    if (refused) return refused;
    // Counted even without a cap: a reload that adds one then sees the calls already running.
    let held = true;
    return {
      ok: true,
      release: () => {
        if (held) this.counters.give(state, 1);
        held = false;
      },
    };
  }

  async whenReady(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {}
}
