/**
 * Opening the counters behind access rules' limits for a command (both use
 * it): this process's, or Redis's (one limit across replicas). Redis is given
 * a moment to connect, so the first calls are counted; when it is down the
 * command starts anyway (store.redis.onUnavailable says what limited calls
 * get meanwhile), and every failure counts in `failures` and a warning.
 */
import type { StoreSettings } from '../config/store-schema.js';
import type { Logger } from '../log.js';
import { CallLimits } from './call-limits.js';
import { createLimitStore, limitStoreHooks } from './limit-store.js';

export async function openCallLimits(settings: StoreSettings | undefined, log: Logger, failures: { inc(): void }): Promise<CallLimits> {
  const redis = settings?.redis;
  const hooks = limitStoreHooks(log, failures, redis ? { onUnavailable: redis.onUnavailable } : {});
  const store = createLimitStore(settings, hooks);
  if (redis && !(await store.whenReady(redis.connectTimeoutMs)))
    log.warn('the limit store (Redis) is not reachable yet; limits follow store.redis.onUnavailable until it is');
  return new CallLimits(store);
}
