/**
 * One OXP upstream, everything it owns: its client (pool, credentials,
 * deadlines), its catalog with refresh, its circuit breaker and retry loop,
 * where its requirement values come from, and the policy its tools are
 * published under.
 */
import { CircuitBreaker } from '../../core/circuit-breaker.js';
import type { Logger } from '../../platform/log.js';
import type { Metrics } from '../../platform/metrics.js';
import type { UpstreamSettings } from '../../config/upstream-settings.js';
import { OxpClient } from '../client/client.js';
import { CallRunner } from './call-runner.js';
import { CatalogService } from './catalog-service.js';
import type { TokenExchanger } from '../client/token-exchanger.js';
import { RequirementValues } from './requirement-values.js';

export type { UpstreamSettings } from '../../config/upstream-settings.js';

export class Upstream {
  readonly name: string;
  readonly client: OxpClient;
  readonly catalog: CatalogService;
  readonly breaker: CircuitBreaker;
  readonly runner: CallRunner;
  readonly values: RequirementValues;
  /** Per-user credentials for this upstream by token exchange (RFC 8693), when configured; its cache lives as long as the upstream. */
  readonly exchanger: Pick<TokenExchanger, 'exchange'> | undefined;
  private periodic: NodeJS.Timeout | undefined;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    readonly settings: UpstreamSettings,
    log: Logger,
    metrics: Metrics | undefined,
    env: NodeJS.ProcessEnv,
  ) {
    this.name = settings.name;
    this.client = new OxpClient({ ...settings.limits, baseUrl: settings.url, auth: settings.auth, userAgent: settings.userAgent });
    this.catalog = new CatalogService(this.client, log.child({ upstream: settings.name }), {
      ttlMs: settings.refreshMs,
      upstream: settings.name,
      policy: settings.policy,
    });
    this.breaker = new CircuitBreaker({ failureThreshold: settings.circuit.failureThreshold, openMs: settings.circuit.openSeconds * 1000 });
    this.runner = new CallRunner(this.client, settings.retry, this.breaker, settings.limits.callTimeoutMs, settings.name, metrics);
    this.values = new RequirementValues(settings.requirements, env);
    this.exchanger = settings.tokenExchange ? lazyExchanger(settings.tokenExchange, log) : undefined;
  }

  /** First catalog load now; until it succeeds a retry runs every few seconds. Then a periodic refresh. */
  async start(): Promise<void> {
    const refreshMs = this.settings.refreshMs;
    const loadOrRetry = async (): Promise<void> => {
      try {
        await this.catalog.refresh();
      } catch {
        this.retry = setTimeout(() => void loadOrRetry(), Math.min(5_000, refreshMs)).unref();
      }
    };
    await loadOrRetry();
    // Proactive refresh, so changes are seen even when no client asks.
    this.periodic = setInterval(() => void this.catalog.refresh().catch(() => undefined), refreshMs).unref();
  }

  get status() {
    return { ...this.catalog.status, circuit: this.breaker.state };
  }

  /** Stops refreshing; in-flight requests on the pool finish before its sockets close. */
  async close(): Promise<void> {
    clearInterval(this.periodic);
    clearTimeout(this.retry);
    await this.client.close();
  }

  /** Stops refreshing and aborts whatever still runs on the pool (shutdown, after the grace period). */
  async destroy(): Promise<void> {
    clearInterval(this.periodic);
    clearTimeout(this.retry);
    await this.client.destroy();
  }
}

/** The upstream's token exchanger, loaded on its first exchange: start-up does not pay for it (nor for lru-cache). */
function lazyExchanger(settings: NonNullable<UpstreamSettings['tokenExchange']>, log: Logger): Pick<TokenExchanger, 'exchange'> {
  let loaded: Promise<TokenExchanger> | undefined;
  return {
    exchange: async (...args) => {
      loaded ??= import('../client/token-exchanger.js').then(({ TokenExchanger }) => new TokenExchanger(settings, { log }));
      return (await loaded).exchange(...args);
    },
  };
}
