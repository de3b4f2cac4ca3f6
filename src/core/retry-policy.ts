/**
 * Which failed OXP calls may be tried again, and after how long.
 *
 * Invariants: only failures where a second attempt cannot run the tool twice
 * (nothing was sent) or the server said "try again" (408/429/502/503/504;
 * `can_retry` tool errors when enabled) are retried; a server-requested delay
 * above the cap is not waited for; every attempt reuses the call's `call_id`
 * (the caller's job: this module never sees ids).
 */
import type { OxpCallOutcome } from './oxp-wire.js';

export interface RetryPolicy {
  /** Attempts in all, the first included (1 = never retry). */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** The longest server-requested wait (`Retry-After`, `retry_after_ms`) the bridge honours. */
  maxRetryAfterMs: number;
  /** Retry 200 `success:false` errors that say `can_retry: true`. */
  retryToolErrors: boolean;
}

const RETRYABLE_STATUS = new Set([408, 429, 502, 503, 504]);

/** The server-requested delay when the outcome is retryable, `null` when it must not be retried. */
export function retryableDelayHint(outcome: OxpCallOutcome, policy: RetryPolicy): number | undefined | null {
  switch (outcome.kind) {
    case 'unreachable':
      return outcome.beforeSend ? undefined : null;
    case 'unavailable':
      return RETRYABLE_STATUS.has(outcome.status) ? outcome.retryAfterMs : null;
    case 'tool_error':
      return policy.retryToolErrors && outcome.error.canRetry ? outcome.error.retryAfterMs : null;
    default:
      return null;
  }
}

/**
 * The wait before attempt `attempt + 1` (attempt counts from 1), or `null`
 * to stop: attempts exhausted, not retryable, or the server asks for more
 * than the cap. Exponential backoff with full jitter (`random` in [0, 1)),
 * never shorter than the server's own hint.
 */
export function nextDelayMs(outcome: OxpCallOutcome, attempt: number, policy: RetryPolicy, random: () => number = Math.random): number | null {
  if (attempt >= policy.maxAttempts) return null;
  const hint = retryableDelayHint(outcome, policy);
  if (hint === null) return null;
  if (hint !== undefined && hint > policy.maxRetryAfterMs) return null;
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1)) * random();
  return Math.round(Math.max(hint ?? 0, backoff));
}
