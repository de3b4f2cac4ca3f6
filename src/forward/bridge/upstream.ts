/**
 * One OXP upstream, everything it owns: its client (pool, credentials,
 * deadlines), its catalog with refresh (and its retries within seconds of a
 * failed or incomplete load), its circuit breaker and retry loop,
 * where its requirement values come from, and the policy its tools are
 * published under.
 */
import { CircuitBreaker } from '../../core/circuit-breaker.js';
import type { Logger } from '../../platform/log.js';
import type { Metrics } from '../../platform/metrics.js';
import type { UpstreamSettings } from '../../config/upstream-settings.js';
import { OxpClient } from '../client/client.js';
import { CallRunner } from './call-runner.js';
import { CatalogService, type CatalogAttempt } from './catalog-service.js';
import { CATALOG_RETRY_MAX_MS, catalogRetryDelayMs } from '../../core/catalog-backoff.js';
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
  /** The next catalog attempt after a failed or incomplete one, and how many such attempts in a row. */
  private retry: NodeJS.Timeout | undefined;
  private retries = 0;
  private closed = false;

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

  /**
   * First catalog load now, then a periodic refresh. A load that fails, or that the server says is not whole yet
   * (an oxp-server whose MCP servers are still connecting), is tried again on a short backoff (followUp).
   */
  async start(): Promise<void> {
    const refreshMs = this.settings.refreshMs;
    this.catalog.onAttempt((attempt) => this.followUp(attempt));
    await this.catalog.refresh().catch(() => undefined);
    // Proactive refresh, so changes are seen even when no client asks.
    this.periodic = setInterval(() => void this.catalog.refresh().catch(() => undefined), refreshMs).unref();
  }

  /**
   * After each load, whoever started it: a whole catalog ends the retries; a failed or incomplete one schedules the
   * next attempt (0.5 s doubling to 5 s, jittered, at least the server's Retry-After: core/catalog-backoff.ts) unless
   * one is already scheduled. Every client that connected meanwhile is told when tools arrive (CatalogService).
   */
  private followUp(attempt: CatalogAttempt): void {
    if (attempt.ok && attempt.pending === 0) {
      this.retries = 0;
      clearTimeout(this.retry);
      this.retry = undefined;
      return;
    }
    if (this.closed || this.retry) return;
    this.retries++;
    const cap = Math.min(CATALOG_RETRY_MAX_MS, this.settings.refreshMs);
    const delay = catalogRetryDelayMs(this.retries, attempt.ok ? undefined : attempt.retryAfterMs, cap);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.catalog.refresh().catch(() => undefined);
    }, delay).unref();
  }

  get status() {
    return { ...this.catalog.status, circuit: this.breaker.state };
  }

  /** Stops refreshing; in-flight requests on the pool finish before its sockets close. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.periodic);
    clearTimeout(this.retry);
    await this.client.close();
  }

  /** Stops refreshing and aborts whatever still runs on the pool (shutdown, after the grace period). */
  async destroy(): Promise<void> {
    this.closed = true;
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
