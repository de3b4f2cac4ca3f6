/**
 * The limit store's health as an operator sees it: every acquire that could
 * not reach the store counts in a metric (the owner's prom-client Counter,
 * e.g. mcp_oxp_bridge_limit_store_failures_total), and a warning says so at most
 * once per interval, with how many more failed since: an outage under load
 * is one line every ten seconds, not one per call. Recovery logs once.
 */
import type { Counter } from 'prom-client';
import type { LimitStoreHooks } from './limit-types.js';

/** What is used of a pino logger. */
export interface HooksLogger {
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

export interface HooksOptions {
  /** `store.redis.onUnavailable`, for the warning's wording. */
  onUnavailable?: 'share' | 'allow' | 'refuse';
  /** Shortest time between two warnings. */
  intervalMs?: number;
  now?: () => number;
}

/** What a limited call meets while the store does not answer, per `onUnavailable`, in the warning's words. */
const CONSEQUENCES = {
  share: 'each replica enforces its share of every limit by itself',
  allow: 'limited calls pass uncounted',
  refuse: 'limited calls are refused',
} as const;

export function limitStoreHooks(log: HooksLogger, failures: Pick<Counter<string>, 'inc'>, options: HooksOptions = {}): LimitStoreHooks {
  const { intervalMs = 10_000, now = Date.now } = options;
  const consequence = CONSEQUENCES[options.onUnavailable ?? 'share'];
  let lastWarning = -Infinity;
  let sinceWarning = 0;
  let sinceDown = 0;
  return {
    onUnavailable(error) {
      failures.inc();
      sinceDown += 1;
      sinceWarning += 1;
      const at = now();
      if (at - lastWarning < intervalMs) return;
      // The message only: the store's errors name no credential, and an error object would bring its properties along.
      const reason = error instanceof Error ? error.message : String(error);
      const code = (error as { code?: unknown } | undefined)?.code;
      log.warn({ reason, code, failures: sinceWarning }, `Limit store unavailable: ${consequence} until it answers again.`);
      lastWarning = at;
      sinceWarning = 0;
    },
    onRecovered() {
      if (sinceDown === 0) return;
      log.info({ failures: sinceDown }, 'Limit store answering again: limits are counted again.');
      sinceDown = 0;
      sinceWarning = 0;
      // A new outage is news: warn at once.
      lastWarning = -Infinity;
    },
  };
}
