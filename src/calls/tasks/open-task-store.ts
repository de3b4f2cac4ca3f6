/**
 * The task store a command runs with: in this process by default, or in Redis when `store.redis` is configured
 * (every replica naming the same Redis and keyPrefix sees every task), with what this replica holds answering
 * while Redis does not (held-locally.ts). The Redis modules load only then, as the limit store's do.
 */
import type { RedisStoreSettings } from '../../config/store-schema.js';
import { MAX_RECONNECT_DELAY_MS } from '../limits/redis-connection.js';
import type { TasksSettings } from '../../config/tasks-schema.js';
import { MemoryTaskStore } from './memory-store.js';
import { RETRY_MS } from './refused-creations.js';
import type { TaskStore, TaskStoreBounds } from './store.js';

export async function openTaskStore(settings: TasksSettings, redis: RedisStoreSettings | undefined): Promise<TaskStore> {
  const bounds: TaskStoreBounds = { maxPerOwner: settings.maxPerPrincipal, maxTotal: settings.maxTasks };
  if (!redis) return new MemoryTaskStore(bounds);
  const [{ RedisTaskStore }, { HeldLocallyTaskStore }] = await Promise.all([import('./redis-store.js'), import('./held-locally.js')]);
  // Renewals and claims come every third of a lease from each replica: a gap of half a lease is Redis standing still,
  // and the runners then get a whole lease to renew before anything is taken over (redis-scripts.ts, the clock), and
  // the time the slowest of them needs to notice Redis is back (its reconnect backoff, then its next probe, after
  // which it writes the ends it held first: held-locally.ts). The first replica back does not take the others' tasks.
  const grace = { pauseMs: Math.floor(settings.leaseMs / 2), graceMs: settings.leaseMs + MAX_RECONNECT_DELAY_MS + RETRY_MS };
  return new HeldLocallyTaskStore(new RedisTaskStore(redis, bounds, grace));
}
