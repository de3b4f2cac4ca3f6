/**
 * The Redis task store's leases (redis-store.ts): every lease one replica holds renewed in batches, and lapsed ones
 * taken over, after a grace when Redis has just come back from a pause (redis-scripts.ts, the clock). A lapsed task
 * its creator never confirmed was a refused creation: the claim removes it, and here it leaves its owner's indexes.
 */
import type { RedisClock } from './redis-clock.js';
import type { TaskKeys } from './redis-keys.js';
import { recordsOfRows, unreadable } from './redis-record.js';
import type { TaskRedisConnection } from './redis-task-connection.js';
import type { HeartbeatOutcome, TaskRecord } from './store.js';

/** Leases renewed per script: 10,000 running tasks are 100 scripts every third of a lease, each ~5 ms of Redis (500 were ~27 ms, a stall every other replica waits behind: bench/README.md, tasks at scale). */
const RENEW_BATCH = 100;

/**
 * When a lapsed lease may be taken over (redis-scripts.ts, the clock): a gap of more than `pauseMs` between two
 * renewals or claims of any replica means Redis stood still, and nothing is taken over until `graceMs` after it
 * resumed, so the runners still alive renew first. The lifecycle's lease sets both (open-task-store.ts).
 */
export interface ResumeGrace {
  readonly pauseMs: number;
  readonly graceMs: number;
}

export const NO_GRACE: ResumeGrace = { pauseMs: 1e12, graceMs: 0 };

export class RedisLeases {
  constructor(
    private readonly redis: TaskRedisConnection,
    private readonly keys: TaskKeys,
    private readonly clock: RedisClock,
    private readonly grace: ResumeGrace,
  ) {}

  /** Every lease this replica holds, renewed in batches of RENEW_BATCH (one script each). */
  async renew(taskIds: readonly string[], holder: string, leaseMs: number): Promise<readonly HeartbeatOutcome[]> {
    const out: HeartbeatOutcome[] = [];
    const { leases, clock, task } = this.keys;
    for (let i = 0; i < taskIds.length; i += RENEW_BATCH) {
      const batch = taskIds.slice(i, i + RENEW_BATCH);
      const sentAt = this.clock.now();
      const reply = await this.redis.run((c) => c.taskRenew(leases, clock, holder, leaseMs, task, this.grace.pauseMs, ...batch));
      if (!Array.isArray(reply) || reply.length !== batch.length + 1) throw unreadable('renew');
      this.clock.observe(sentAt, Number(reply[0]));
      for (const state of reply.slice(1) as unknown[]) {
        if (state !== 'held' && state !== 'lost' && state !== 'ended') throw unreadable('renew');
        out.push(state);
      }
    }
    return out;
  }

  async claimLapsed(holder: string, leaseMs: number, max: number): Promise<readonly TaskRecord[]> {
    const { pauseMs, graceMs } = this.grace;
    const { leases, clock, all, task, channel } = this.keys;
    const reply = await this.redis.run((c) => c.taskClaimLapsed(leases, clock, all, holder, leaseMs, max, task, channel, pauseMs, graceMs));
    if (!Array.isArray(reply) || reply.length !== 2 || !Array.isArray(reply[1])) throw unreadable('claim');
    const [taken, removed] = reply as [unknown, unknown[]];
    await this.dropFromOwners(removed);
    return recordsOfRows(taken, 'claim').slice(0, max);
  }

  /** The tasks a claim removed (never confirmed: refused), out of their owners' indexes: ids and owners in turn. */
  private async dropFromOwners(removed: readonly unknown[]): Promise<void> {
    if (removed.length === 0) return;
    const owners = new Map<string, string[]>();
    for (let i = 0; i + 1 < removed.length; i += 2) {
      const [taskId, owner] = [removed[i], removed[i + 1]];
      if (typeof taskId !== 'string' || typeof owner !== 'string') throw unreadable('claim');
      owners.set(owner, [...(owners.get(owner) ?? []), taskId]);
    }
    // A failure here leaves members whose task is gone: a page or a creation drops them when it meets them.
    await this.redis
      .run((c) => {
        const batch = c.multi();
        for (const [owner, ids] of owners) for (const key of this.keys.ownerKeys(owner)) batch.zrem(key, ...ids);
        return batch.exec();
      })
      .catch(() => undefined);
  }
}
