/**
 * The counter store behind access-policy limits: where "at most N per
 * minute, M at once" is counted for a key such as
 * `rule:3|principal:alice|tool:Calc_Add` (the access policy builds the key).
 *
 * - memory (no `store.redis`): counters in this process; each replica
 *   enforces its own copy of every limit.
 * - redis (`store.redis.url`): counters in Redis, one limit across every
 *   replica that shares the server and key prefix. The client library loads
 *   only then (redis-connection.ts).
 *
 * docs/configuration.md ("Limits and Redis") says what each setting does and
 * what happens when Redis is down.
 */
import type { StoreSettings } from '../../config/store-schema.js';
import type { LimitStore, LimitStoreHooks } from './limit-types.js';
import { MemoryLimitStore } from './memory-limit-store.js';
import { RedisLimitStore } from './redis-limit-store.js';

export type { LimitRefusal, LimitSpec, LimitStore, LimitStoreHooks, LimitVerdict } from './limit-types.js';
export type { RedisStoreSettings, StoreSettings } from '../../config/store-schema.js';
export { LimitStoreError } from './redis-limit-store.js';
export { limitStoreHooks } from './limit-store-hooks.js';

/** The store `settings` name; a bad Redis URL throws a ConfigError here, at start-up, without echoing the URL. */
export function createLimitStore(settings: StoreSettings | undefined, hooks: LimitStoreHooks): LimitStore {
  return settings?.redis ? new RedisLimitStore(settings.redis, hooks) : new MemoryLimitStore();
}
