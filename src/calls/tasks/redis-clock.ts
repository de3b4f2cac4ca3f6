/**
 * What this replica knows of Redis's clock, so that a deadline it sets can be checked by a script against Redis's own
 * `TIME` (redis-scripts.ts CREATE_LUA): a task creation this replica refused after `commandTimeoutMs` must not be
 * carried out by a Redis that received it and ran it later (frozen and resumed, slower than the timeout).
 *
 * Each reply that carries Redis's time R, for a command sent at local time s and answered at r (this process's
 * monotonic clock), says that Redis's clock read R at some local moment in [s, r]: the offset from the local clock to
 * Redis's lies in [R - r, R - s]. The store keeps the largest lower bound seen (the tightest), so a local time L maps
 * to a Redis time of at least L + offsetLow: a deadline of `L + offsetLow - margin` has passed on Redis's clock by the
 * local moment L, whatever the network and Redis did meanwhile. Clocks drift (NTP slews Redis's wall clock), so a
 * bound older than BOUND_LIFE_MS gives way to the next sample, and the margin covers the rest.
 */

/** How long a lower bound is trusted before a newer sample, even a looser one, replaces it. */
export const BOUND_LIFE_MS = 30_000;

/** Subtracted from every deadline: drift and clock steps on Redis's host smaller than this cannot stretch one. */
export const DEADLINE_MARGIN_MS = 25;

export class RedisClock {
  private offsetLow: number | undefined;
  private boundAt = 0;

  constructor(private readonly local: () => number = () => performance.now()) {}

  /** The local monotonic time now, as samples and deadlines are measured. */
  now(): number {
    return this.local();
  }

  /** A reply carrying Redis's time `redisMs` (epoch ms) to a command sent at local time `sentAt`, received now. */
  observe(sentAt: number, redisMs: number): void {
    const receivedAt = this.local();
    if (!Number.isFinite(redisMs) || redisMs <= 0 || receivedAt < sentAt) return;
    const low = redisMs - receivedAt;
    if (this.offsetLow === undefined || low >= this.offsetLow || receivedAt - this.boundAt > BOUND_LIFE_MS) {
      this.offsetLow = low;
      this.boundAt = receivedAt;
    }
  }

  /** Whether a deadline can be set: at least one reply has been seen. */
  get known(): boolean {
    return this.offsetLow !== undefined;
  }

  /**
   * Redis's time (epoch ms) that has certainly passed by the local moment `localMs`: a script run after `localMs`
   * sees a later `TIME`. Undefined until a sample was seen.
   */
  deadlineAt(localMs: number): number | undefined {
    if (this.offsetLow === undefined) return undefined;
    return Math.floor(localMs + this.offsetLow - DEADLINE_MARGIN_MS);
  }
}
