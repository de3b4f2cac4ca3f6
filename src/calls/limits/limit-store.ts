/**
 * The counter store behind access-policy limits: where "at most N per
 * minute, M at once" is counted for a limit key such as
 * `rule:ci-limit|p:alice|t:Calc_Add` (call-limits.ts builds it: `rule:` and
 * the rule's id, or `#` and its index, then the principal's subject and the
 * tool, each left out when the rule's `per` counts across them). In Redis a
 * limit key becomes `<prefix>{<limit key>}:rate` and
 * `<prefix>{<limit key>}:leases` (redis-script.ts, `redisKeys`).
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
