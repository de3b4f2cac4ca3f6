/**
 * One replica's share of every limit, for the Redis limit store's 'share' mode: while Redis does not answer (down,
 * frozen, or only slow under load), each replica enforces the limit divided by the replicas there are, by itself,
 * so N replicas together let through about the limit, not N times it nor everything.
 *
 * Two things make the share hold across a switch:
 * - It is counted all along: what Redis admits is charged here too (when it fits), so a replica that falls back in
 *   the middle of a minute starts from what it already let through, not from a full bucket.
 * - Replicas are counted in Redis: each announces itself every BEAT_MS in one sorted set (`<keyPrefix>replicas`, its
 *   score the time of its last beat) and reads how many beat within STALE_MS. The last count read is kept for when
 *   Redis is gone; before any is read, `store.redis.replicas` (default 1).
 */
import { randomBytes } from 'node:crypto';
import type { RedisStoreSettings } from '../../config/store-schema.js';
import { LocalCounters } from '../../platform/counters/local-counters.js';
import type { LimitSpec, LimitVerdict } from './limit-types.js';
import type { ScriptedRedis } from './redis-connection.js';

/** How often a replica announces itself; one that has not for STALE_MS is counted out. */
const BEAT_MS = 5_000;
const STALE_MS = 3 * BEAT_MS;

/**
 * `spec` divided among `replicas`: the sustained rate exactly (a rate is continuous), the burst and the in-flight
 * cap rounded up (at least one each, so a limit that admits something still does on every replica).
 */
export function shareOf(spec: LimitSpec, replicas: number): LimitSpec {
  if (replicas <= 1) return spec;
  const part = (n: number) => (n > 0 ? Math.max(1, Math.ceil(n / replicas)) : 0);
  return { requestsPerMinute: spec.requestsPerMinute / replicas, burst: part(spec.burst), maxInFlight: part(spec.maxInFlight) };
}

export class ReplicaShare {
  private readonly counters = new LocalCounters();
  private readonly id = randomBytes(12).toString('base64url');
  private readonly key: string;
  private readonly timer: NodeJS.Timeout | undefined;
  /** Replicas sharing the limits, as last read from Redis (or configured, before that). */
  replicas: number;

  constructor(
    private readonly settings: RedisStoreSettings,
    private readonly client: () => Promise<ScriptedRedis | Error>,
  ) {
    this.key = `${settings.keyPrefix}replicas`;
    this.replicas = settings.replicas ?? 1;
    if (settings.onUnavailable !== 'share') return;
    this.timer = setInterval(() => void this.announce(), BEAT_MS).unref();
  }

  /** Charges an admitted call to this replica's share if it fits; returns the give-back of its in-flight slot. */
  charge(key: string, spec: LimitSpec): (() => void) | undefined {
    const share = shareOf(spec, this.replicas);
    const state = this.counters.stateOf(key, share);
    if (this.counters.take(state, 1, share, '')) return undefined;
    return () => this.counters.give(state, 1);
  }

  /** Takes one call from this replica's share, as the memory store would from the whole limit. */
  acquire(key: string, spec: LimitSpec): LimitVerdict {
    const share = shareOf(spec, this.replicas);
    const state = this.counters.stateOf(key, share);
    const refused = this.counters.take(state, 1, share, '');
    if (refused) return refused;
    let held = true;
    return {
      ok: true,
      release: () => {
        if (held) this.counters.give(state, 1);
        held = false;
      },
    };
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Announces this replica and reads how many beat lately; a failure keeps the last count (Redis may be the trouble). */
  async announce(): Promise<void> {
    if (this.settings.onUnavailable !== 'share') return;
    const client = await this.client().catch(() => undefined);
    if (!client || client instanceof Error || client.status !== 'ready') return;
    const now = Date.now();
    const replies = await client
      .multi()
      .zadd(this.key, now, this.id)
      .zremrangebyscore(this.key, '-inf', now - STALE_MS)
      .zcard(this.key)
      .pexpire(this.key, STALE_MS * 2)
      .exec()
      .catch(() => null);
    const counted = Number(replies?.[2]?.[1]);
    if (Number.isInteger(counted) && counted >= 1 && counted <= 10_000) this.replicas = counted;
  }
}
