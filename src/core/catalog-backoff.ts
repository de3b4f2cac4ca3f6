/**
 * How soon a tool catalog that could not be had is asked for again (the forward bridge's `GET /tools`): a first
 * load that failed, a refresh that failed, or a list its server said is not whole yet. Seconds, not the refresh
 * period: an upstream that starts a moment after the bridge (Compose, one pod) is served within seconds of it.
 *
 * Invariants: the first retry comes after about half a second, each later one after twice as long, never more than
 * the cap (5 s, or the refresh period when that is shorter); each wait is jittered between half and all of its step,
 * so replicas started together spread out, and never shorter than the server's own `Retry-After`, within the cap.
 */

/** The first step. */
export const CATALOG_RETRY_FIRST_MS = 500;
/** The longest wait between two attempts. */
export const CATALOG_RETRY_MAX_MS = 5_000;

/**
 * The wait before retry `attempt` (counted from 1). `hintMs`: the server's `Retry-After`, honoured up to `capMs`;
 * `random` in [0, 1).
 */
export function catalogRetryDelayMs(
  attempt: number,
  hintMs: number | undefined,
  capMs: number = CATALOG_RETRY_MAX_MS,
  random: () => number = Math.random,
): number {
  const cap = Math.max(1, capMs);
  const step = Math.min(cap, CATALOG_RETRY_FIRST_MS * 2 ** Math.min(Math.max(attempt, 1) - 1, 16));
  const jittered = step * (0.5 + random() / 2);
  return Math.round(Math.max(jittered, Math.min(hintMs ?? 0, cap)));
}
