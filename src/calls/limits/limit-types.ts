/**
 * What the limit stores (memory-limit-store.ts, redis-limit-store.ts) promise: a verdict per acquire, and their health. What a
 * limit is and what a refusal reads like is platform/counters/limit-spec.ts's, shared with the MCP face's per-client
 * admission (forward/face/client-limits.ts), so a refusal reads the same whichever of them made it. In a module of
 * its own: limit-store.ts builds the stores, and the stores need these types without a cycle back to it.
 */
import type { LimitRefusal, LimitSpec } from '../../platform/counters/limit-spec.js';

export {
  capacityOf,
  inFlightRefusal,
  limitsNothing,
  rateRefusal,
  rateRefusalFor,
  tokensPerMs,
  type CountRefusal,
  type LimitRefusal,
  type LimitSpec,
} from '../../platform/counters/limit-spec.js';

export type LimitVerdict =
  | {
      ok: true;
      /** Gives back the in-flight slot (idempotent). */
      release: () => void;
      /** Allowed because the store was unreachable and `onUnavailable` is 'allow': nothing was counted. */
      degraded?: true;
    }
  | LimitRefusal;

/** What the store tells its owner about its health (limit-store-hooks.ts turns them into a metric and log lines). */
export interface LimitStoreHooks {
  /** An acquire could not reach the store; `error` names no credential. */
  onUnavailable(error: unknown): void;
  /** An acquire reached the store again after one that could not. */
  onRecovered?(): void;
}

export interface LimitStore {
  readonly kind: 'memory' | 'redis';
  /** Takes one request from `key`'s allowance under `spec`; call-limits.ts builds the key from the rule, the principal and the tool. */
  acquire(key: string, spec: LimitSpec): Promise<LimitVerdict>;
  /**
   * Resolves true once the store answers, false if it did not within `timeoutMs`
   * (for a start-up or readiness check; acquire never needs it).
   */
  whenReady(timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

/** An admitted verdict that holds nothing (no in-flight cap, or nothing limited). */
export const admittedFreely: LimitVerdict = Object.freeze({ ok: true as const, release: () => {} });
