/**
 * The task store a command runs with: in this process by default, or in Redis when `store.redis` is configured
 * (every replica naming the same Redis and keyPrefix sees every task), with what this replica holds answering
 * while Redis does not (held-locally.ts). The Redis modules load only then, as the limit store's do.
 */
import type { RedisStoreSettings } from '../../config/store-schema.js';
import type { TasksSettings } from '../../config/tasks-schema.js';
import { MemoryTaskStore } from './memory-store.js';
import type { TaskStore, TaskStoreBounds } from './store.js';

/** What is used of a logger. */
interface OutageLog {
  warn(fields: object, message: string): void;
}

/** Shortest time between two warnings of one outage: under load an outage is a line every ten seconds, not one per read. */
const WARN_EVERY_MS = 10_000;

export async function openTaskStore(settings: TasksSettings, redis: RedisStoreSettings | undefined, log: OutageLog): Promise<TaskStore> {
  const bounds: TaskStoreBounds = { maxPerOwner: settings.maxPerPrincipal, maxTotal: settings.maxTasks };
  if (!redis) return new MemoryTaskStore(bounds);
  const [{ RedisTaskStore }, { HeldLocallyTaskStore }] = await Promise.all([import('./redis-store.js'), import('./held-locally.js')]);
  let lastWarning = -Infinity;
  let since = 0;
  return new HeldLocallyTaskStore(new RedisTaskStore(redis, bounds), (error) => {
    since += 1;
    if (Date.now() - lastWarning < WARN_EVERY_MS) return;
    log.warn(
      { reason: error.message, failures: since },
      'Task store (Redis) unavailable: tasks are answered from what this replica holds until it answers again.',
    );
    lastWarning = Date.now();
    since = 0;
  });
}
