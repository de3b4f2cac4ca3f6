/**
 * Wires the MCP → OXP direction together: upstream (or the embedded demo
 * toolkit) → OXP client → catalog → bridge → MCP front (HTTP or stdio).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { Bridge } from './bridge/bridge.js';
import { CallRunner } from './bridge/call-runner.js';
import { CatalogService } from './bridge/catalog-service.js';
import { RequirementValues } from './bridge/requirement-values.js';
import { CircuitBreaker } from './core/circuit-breaker.js';
import { Metrics } from './metrics.js';
import type { BridgeConfig } from './config/load.js';
import { demoTools } from './demo/demo-toolkit.js';
import type { Logger } from './log.js';
import { isLoopbackHost, startHttpFront } from './mcp-front/http.js';
import { InboundAuth, unsafeExposure, type InboundAuthConfig } from './mcp-front/inbound-auth.js';
import { ConfigError } from './config/load.js';
import { serveStdio, type ServerIdentity } from './mcp-front/mcp-sdk.js';
import { createOxpApp } from './oxp-server/app.js';
import { listen, type ListeningServer } from './oxp-server/listen.js';
import { OxpClient } from './oxp-client/client.js';
import type { UpstreamAuth } from './oxp-client/auth.js';

export const VERSION = '0.1.0';

export interface RunningBridge {
  /** The MCP endpoint URL (HTTP transport only). */
  mcpUrl?: string;
  /** The OXP upstream in use (the demo toolkit's URL when embedded). */
  upstreamUrl: string;
  bridge: Bridge;
  metrics: Metrics;
  /**
   * Graceful shutdown, step one: stop taking requests (readiness turns 503)
   * and wait for in-flight ones, up to `deadlineMs`. Resolves with how many
   * were still running at the deadline (0 = all completed).
   */
  drain(deadlineMs: number): Promise<number>;
  close(): Promise<void>;
}

export function upstreamAuth(config: BridgeConfig): UpstreamAuth {
  const u = config.upstream;
  if (u.jwtSecret) return { kind: 'jwt', secret: u.jwtSecret, ttlSeconds: u.jwtTtlSeconds, issuer: 'mcp-oxp-bridge', ...(u.jwtAudience ? { audience: u.jwtAudience } : {}) };
  if (u.bearerToken) return { kind: 'bearer', token: u.bearerToken };
  if (u.apiKey) return { kind: 'api_key', key: u.apiKey, header: u.apiKeyHeader };
  return { kind: 'none' };
}

/**
 * @param env where `OXP_SECRET_<ID>` and `{env: NAME}` sources are read at
 *   call time (the process environment unless given).
 */
/** The inbound auth mode: explicit, else bearer when tokens are set, oauth when configured, else none. */
export function inboundAuthConfig(config: BridgeConfig): InboundAuthConfig {
  const a = config.auth;
  const mode = a.mode ?? (a.tokens?.length || a.tokensFile ? 'bearer' : a.oauth ? 'oauth' : 'none');
  return { ...a, mode };
}

export async function startBridge(config: BridgeConfig, log: Logger, env: NodeJS.ProcessEnv = process.env): Promise<RunningBridge> {
  // Checked before anything listens: an unauthenticated endpoint stays on loopback unless the operator opts out.
  const authConfig = inboundAuthConfig(config);
  if (config.transport === 'http') {
    const refusal = unsafeExposure(config.host, authConfig, isLoopbackHost);
    if (refusal) throw new ConfigError(refusal);
  }
  const inboundAuth = new InboundAuth(authConfig);

  let demo: ListeningServer | undefined;
  let upstreamUrl = config.upstream.url;
  if (!upstreamUrl) {
    demo = await listen(createOxpApp(demoTools(), { maxBodyBytes: 1_048_576 }), '127.0.0.1', 0);
    upstreamUrl = demo.url;
    log.info({ upstream: upstreamUrl }, 'no OXP upstream configured (--oxp-url / OXP_URL): serving the embedded demo toolkit');
  }

  const client = new OxpClient({ ...config.upstream, baseUrl: upstreamUrl, auth: upstreamAuth(config), userAgent: `mcp-oxp-bridge/${VERSION}` });
  const refreshMs = config.catalog.refreshSeconds * 1000;
  const catalog = new CatalogService(client, log, { ttlMs: refreshMs });
  const breaker = new CircuitBreaker({ failureThreshold: config.upstream.circuit.failureThreshold, openMs: config.upstream.circuit.openSeconds * 1000 });
  const upstream = 'default';
  let inFlight = () => 0;
  const metrics = new Metrics({
    catalogTools: () => [{ upstream, tools: catalog.status.tools }],
    circuits: () => [{ upstream, state: breaker.state }],
    inFlight: () => inFlight(),
  });
  const runner = new CallRunner(client, config.upstream.retry, breaker, config.upstream.callTimeoutMs, upstream, metrics);
  const values = new RequirementValues(config.requirements, env);
  const bridge = new Bridge(
    catalog,
    runner,
    values,
    log,
    {
      upstream,
      pageSize: config.catalog.pageSize,
      listTtlMs: refreshMs,
      maxValidators: config.catalog.maxValidators,
      progressIntervalMs: config.upstream.progressIntervalMs,
      authorizationPollMs: config.upstream.authorizationPollMs,
      authorizationWaitMs: config.upstream.authorizationWaitSeconds * 1000,
    },
    metrics,
  );

  // First load now; until it succeeds, /readyz says 503 and a retry runs every few seconds.
  const loadOrRetry = async (): Promise<void> => {
    try {
      await catalog.refresh();
    } catch {
      retry = setTimeout(() => void loadOrRetry(), Math.min(5_000, refreshMs)).unref();
    }
  };
  let retry: NodeJS.Timeout | undefined;
  await loadOrRetry();
  // Proactive refresh, so changes are seen even when no client asks.
  const periodic = setInterval(() => void catalog.refresh().catch(() => undefined), refreshMs).unref();

  // requestState keys derive from the shared session secret, so every replica verifies every round.
  const stateKey = createHmac('sha256', config.http.sessionSecret ?? randomBytes(32)).update('mcp-oxp-bridge/request-state').digest();
  const identity: ServerIdentity = { name: 'mcp-oxp-bridge', version: VERSION, stateKey };
  let closeFront: () => Promise<void>;
  let drainFront: (deadlineMs: number) => Promise<number>;
  let mcpUrl: string | undefined;
  if (config.transport === 'stdio') {
    const handle = serveStdio(bridge, identity, (error) => log.debug({ err: error.message }, 'stdio endpoint reported'));
    closeFront = () => handle.close();
    drainFront = (deadlineMs) => bridge.drain(deadlineMs);
    log.info('MCP stdio transport ready');
  } else {
    const front = await startHttpFront(bridge, identity, { ...config.http, host: config.host, port: config.port, auth: inboundAuth, metrics }, log);
    mcpUrl = front.url;
    closeFront = () => front.close();
    drainFront = (deadlineMs) => front.drain(deadlineMs);
    inFlight = () => front.inFlight;
  }

  const result: RunningBridge = {
    upstreamUrl,
    bridge,
    metrics,
    drain: async (deadlineMs) => {
      const left = await drainFront(deadlineMs);
      if (left > 0) log.warn({ in_flight: left }, 'drain deadline passed with requests still in flight');
      else log.info('drained: no request in flight');
      return left;
    },
    close: async () => {
      clearInterval(periodic);
      if (retry) clearTimeout(retry);
      await closeFront();
      await client.close();
      await demo?.close();
    },
  };
  if (mcpUrl) result.mcpUrl = mcpUrl;
  return result;
}
