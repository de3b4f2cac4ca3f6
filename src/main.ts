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
import type { BridgeConfig } from './config/load.js';
import { demoTools } from './demo/demo-toolkit.js';
import type { Logger } from './log.js';
import { startHttpFront } from './mcp-front/http.js';
import type { FastPathStats } from './mcp-front/fast-path.js';
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
  /** HTTP only, with the fast path on: requests it answered / left to the SDK. */
  fastPathStats?: FastPathStats;
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
export async function startBridge(config: BridgeConfig, log: Logger, env: NodeJS.ProcessEnv = process.env): Promise<RunningBridge> {
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
  const runner = new CallRunner(client, config.upstream.retry, breaker, config.upstream.callTimeoutMs);
  const values = new RequirementValues(config.requirements, env);
  const bridge = new Bridge(catalog, runner, values, log, { pageSize: config.catalog.pageSize, listTtlMs: refreshMs, maxValidators: config.catalog.maxValidators, progressIntervalMs: config.upstream.progressIntervalMs,
    authorizationPollMs: config.upstream.authorizationPollMs,
    authorizationWaitMs: config.upstream.authorizationWaitSeconds * 1000,
  });

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
  let mcpUrl: string | undefined;
  let fastPathStats: FastPathStats | undefined;
  if (config.transport === 'stdio') {
    const handle = serveStdio(bridge, identity, (error) => log.debug({ err: error.message }, 'stdio endpoint reported'));
    closeFront = () => handle.close();
    log.info('MCP stdio transport ready');
  } else {
    const front = await startHttpFront(bridge, identity, { ...config.http, host: config.host, port: config.port }, log);
    mcpUrl = front.url;
    fastPathStats = front.fastPathStats;
    closeFront = () => front.close();
  }

  const result: RunningBridge = {
    upstreamUrl,
    bridge,
    close: async () => {
      clearInterval(periodic);
      if (retry) clearTimeout(retry);
      await closeFront();
      await client.close();
      await demo?.close();
    },
  };
  if (mcpUrl) result.mcpUrl = mcpUrl;
  if (fastPathStats) result.fastPathStats = fastPathStats;
  return result;
}
