/**
 * Wires the MCP → OXP direction together: upstreams (or the embedded demo
 * toolkit) → OXP clients → catalogs → merged catalog → bridge → MCP front
 * (HTTP or stdio).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { Bridge } from './bridge/bridge.js';
import { Upstream, type UpstreamSettings } from './bridge/upstream.js';
import { UpstreamSet } from './bridge/upstream-set.js';
import { upstreamSettings } from './config/upstreams.js';
import { unboundSecretVariables } from './config/grants.js';
import { Metrics } from './metrics.js';
import { preloadValidation } from './shared/input-validator.js';
import { loadInStages } from './shared/staged-load.js';
import type { BridgeConfig } from './config/load.js';
import { demoTools } from './demo/demo-toolkit.js';
import type { Logger } from './log.js';
import { startHttpFront } from './mcp-front/http.js';
import { isLoopbackHost } from './net/loopback.js';
import { metricsTokenOf } from './mcp-front/ops-routes.js';
import { InboundAuth, oauthConfigProblem, unsafeExposure, type InboundAuthConfig } from './mcp-front/inbound-auth.js';
import { ConfigError } from './config/load.js';
import type { ServerIdentity, StdioEnd } from './mcp-front/mcp-sdk.js';
import { createOxpApp } from './oxp-front/app.js';
import { listen, type ListeningServer } from './oxp-front/listen.js';
import { LocalToolSource } from './demo/local-tools.js';

export const VERSION = '0.1.0';

export interface RunningBridge {
  /** The MCP endpoint URL (HTTP transport only). */
  mcpUrl?: string;
  /** The (first) OXP upstream in use (the demo toolkit's URL when embedded). */
  upstreamUrl: string;
  bridge: Bridge;
  metrics: Metrics;
  /**
   * Graceful shutdown, step one: stop taking requests (readiness turns 503)
   * and wait for in-flight ones, up to `deadlineMs`. Resolves with how many
   * were still running at the deadline (0 = all completed).
   */
  drain(deadlineMs: number): Promise<number>;
  /**
   * Applies a new configuration to the running bridge: upstreams (with their
   * credentials, policies, retry and circuit settings), requirements, catalog
   * page size and log level change live; unchanged upstreams keep their pools
   * and catalogs. Returns the keys that only take effect after a restart.
   * Throws ConfigError (and changes nothing) when the new upstreams are invalid.
   */
  applyConfig(next: BridgeConfig): Promise<string[]>;
  /** stdio only: settles when the MCP transport closed (stdin's end, or a failure such as an overlong line). */
  stdioClosed?: Promise<StdioEnd>;
  close(): Promise<void>;
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
  const oauthProblem = oauthConfigProblem(authConfig);
  if (oauthProblem) throw new ConfigError(oauthProblem);
  const inboundAuth = new InboundAuth(authConfig);

  let demo: ListeningServer | undefined;
  if (!config.upstream.url && !config.upstreams?.length) {
    demo = await listen(createOxpApp(new LocalToolSource(demoTools()), { maxBodyBytes: 1_048_576, log }), '127.0.0.1', 0);
    log.info({ upstream_url: demo.url }, 'no OXP upstream configured (--oxp-url / OXP_URL): serving the embedded demo toolkit');
  }

  let inFlight = () => 0;
  let upstreams: UpstreamSet | undefined;
  const metrics = new Metrics({
    catalogTools: () => (upstreams?.all ?? []).map((u) => ({ upstream: u.name, tools: u.catalog.status.tools })),
    circuits: () => (upstreams?.all ?? []).map((u) => ({ upstream: u.name, state: u.breaker.state })),
    inFlight: () => inFlight(),
  });
  const userAgent = `mcp-oxp-bridge/${VERSION}`;
  const build = (settings: UpstreamSettings[]) => settings.map((s) => new Upstream(s, log, metrics, env));
  // With several upstreams an OXP_SECRET_<ID> reaches only those granted it: say which ones none may read.
  const warnUnbound = (settings: UpstreamSettings[]) => {
    const variables = unboundSecretVariables(settings.map((s) => s.requirements), env);
    if (variables.length) log.warn({ variables }, 'no upstream is granted these secrets (add the ids to upstreams[].grants.secrets); tools declaring them get a missing-requirement error');
    return settings;
  };
  const initial = build(warnUnbound(upstreamSettings(config, env, userAgent, demo?.url)));
  upstreams = new UpstreamSet(initial);
  await Promise.all(initial.map((u) => u.start()));
  const bridge = new Bridge(
    upstreams,
    log,
    {
      pageSize: config.catalog.pageSize,
      listTtlMs: config.catalog.refreshSeconds * 1000,
      maxValidators: config.catalog.maxValidators,
      progressIntervalMs: config.upstream.progressIntervalMs,
      authorizationPollMs: config.upstream.authorizationPollMs,
      authorizationWaitMs: config.upstream.authorizationWaitSeconds * 1000,
    },
    metrics,
  );

  // requestState keys derive from the shared session secret, so every replica verifies every round.
  const stateKey = createHmac('sha256', config.http.sessionSecret ?? randomBytes(32)).update('mcp-oxp-bridge/request-state').digest();
  const identity: ServerIdentity = { name: 'mcp-oxp-bridge', version: VERSION, stateKey };
  let closeFront: () => Promise<void>;
  let drainFront: (deadlineMs: number) => Promise<number>;
  let mcpUrl: string | undefined;
  let stdioClosed: Promise<StdioEnd> | undefined;
  // What /readyz does not need, loaded before the first call needs it (HTTP: with the front's warm-up, after the first
  // readiness answer; stdio: now), one module per turn of the event loop so a request waits for one load at most.
  const later = [() => metrics.load(), () => preloadValidation()];
  if (config.transport === 'stdio') {
    void loadInStages(later);
    const graceMs = config.http.shutdownGraceSeconds * 1000;
    // Loaded only for stdio: the SDK is not on the HTTP front's start-up path (http.ts loads it after listening).
    const { serveStdio } = await import('./mcp-front/mcp-sdk.js');
    const handle = serveStdio(bridge, identity, (error) => log.debug({ err: error.message }, 'stdio endpoint reported'), graceMs);
    stdioClosed = handle.closed;
    closeFront = () => handle.close();
    drainFront = (deadlineMs) => bridge.drain(deadlineMs);
    log.info('MCP stdio transport ready');
  } else {
    if (config.http.fastPath !== undefined) log.warn('http.fastPath (--fast-path, MCP_FAST_PATH) is deprecated and ignored: every MCP request goes through one pipeline');
    const metricsToken = metricsTokenOf(config.http);
    const front = await startHttpFront(bridge, identity, { ...config.http, ...(metricsToken ? { metricsToken } : {}), console: config.console, host: config.host, port: config.port, auth: inboundAuth, metrics }, log, later);
    mcpUrl = front.url;
    closeFront = () => front.close();
    drainFront = (deadlineMs) => front.drain(deadlineMs);
    inFlight = () => front.inFlight;
  }

  let current = config;
  const applyConfig = async (next: BridgeConfig): Promise<string[]> => {
    const settings = warnUnbound(upstreamSettings(next, env, userAgent, demo?.url)); // throws before anything changes
    const kept = new Map(upstreams.all.map((u) => [JSON.stringify(u.settings), u]));
    const fresh: Upstream[] = [];
    const list = settings.map((s) => {
      const same = kept.get(JSON.stringify(s));
      if (same) return same;
      const created = new Upstream(s, log, metrics, env);
      fresh.push(created);
      return created;
    });
    await Promise.all(fresh.map((u) => u.start()));
    const removed = upstreams.replace(list);
    // Calls already running on a removed upstream finish before its pool closes.
    for (const u of removed) void u.close();
    bridge.updateOptions({ pageSize: next.catalog.pageSize, listTtlMs: next.catalog.refreshSeconds * 1000 });
    log.level = next.logLevel;
    const restartOnly = (['transport', 'host', 'port', 'auth', 'http'] as const).filter((k) => JSON.stringify(current[k]) !== JSON.stringify(next[k]));
    current = next;
    log.info({ upstreams: list.map((u) => u.name), started: fresh.map((u) => u.name), removed: removed.map((u) => u.name) }, 'configuration reloaded');
    if (restartOnly.length) log.warn({ keys: restartOnly }, 'configuration keys changed that take effect only after a restart');
    return restartOnly;
  };

  const result: RunningBridge = {
    upstreamUrl: initial[0]!.settings.url,
    bridge,
    applyConfig,
    metrics,
    drain: async (deadlineMs) => {
      const left = await drainFront(deadlineMs);
      if (left > 0) log.warn({ in_flight: left }, 'drain deadline passed with requests still in flight');
      else log.info('drained: no request in flight');
      return left;
    },
    close: async () => {
      await closeFront();
      await upstreams.close();
      await demo?.close();
    },
  };
  if (mcpUrl) result.mcpUrl = mcpUrl;
  if (stdioClosed) result.stdioClosed = stdioClosed;
  return result;
}
