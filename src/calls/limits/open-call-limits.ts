/**
 * Opening the counters behind access rules' limits for a command (both use
 * it): this process's, or Redis's (one limit across replicas). The store
 * module loads when first needed, so a policy without limits never loads it
 * (nor lru-cache, nor Redis's client); with Redis configured it loads now and
 * is given a moment to connect, so the first calls are counted. When Redis
 * is down the command starts anyway (store.redis.onUnavailable says what
 * limited calls get meanwhile), and every failure counts in `failures` and a
 * warning.
 */
import type { StoreSettings } from '../../config/store-schema.js';
import type { Logger } from '../../platform/log.js';
import { CallLimits } from './call-limits.js';

export async function openCallLimits(settings: StoreSettings | undefined, log: Logger, failures: { inc(): void }): Promise<CallLimits> {
  const redis = settings?.redis;
  const limits = new CallLimits(async () => {
    const { createLimitStore, limitStoreHooks } = await import('./limit-store.js');
    return createLimitStore(settings, limitStoreHooks(log, failures, redis ? { onUnavailable: redis.onUnavailable } : {}));
  });
  if (redis && !(await (await limits.loaded()).whenReady(redis.connectTimeoutMs)))
    log.warn('the limit store (Redis) is not reachable yet; limits follow store.redis.onUnavailable until it is');
  return limits;
}
