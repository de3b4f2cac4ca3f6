/**
 * The MCP server command (`mcp-oxp-bridge`, the forward direction): wires MCP clients to OXP tool servers.
 *
 *   MCP client → forward/face/ (HTTP or stdio) → forward/bridge/ (catalogs, calls) → forward/client/ → OXP tool server
 *
 * This module only assembles and starts them: the inbound auth checked before anything listens, the upstreams (or the
 * embedded demo toolkit behind reverse/face/), the bridge, the face, and a configuration reload applied to the running
 * parts. Its mirror for the other direction is src/reverse/bridge/.
 */
import { createAuditSink, type AuditSink } from '../calls/audit/sink.js';
import { Bridge, type ForwardGate } from '../forward/bridge/bridge.js';
import { CallGate } from '../calls/gate.js';
import { ToolAccess } from '../forward/bridge/tool-access.js';
import { openCallLimits } from '../calls/limits/open-call-limits.js';
import { AccessPolicy } from '../core/access-policy.js';
import { Upstream, type UpstreamSettings } from '../forward/bridge/upstream.js';
import { UpstreamSet } from '../forward/bridge/upstream-set.js';
import { TaskCalls } from '../forward/bridge/task-calls.js';
import { TaskLifecycle } from '../calls/tasks/lifecycle.js';
import { logTaskStoreState, taskEventHooks } from './task-events.js';
import { openTaskStore } from '../calls/tasks/open-task-store.js';
import { DEMO_UPSTREAM, upstreamSettings } from '../config/upstreams.js';
import { unboundSecretVariables } from '../config/grants.js';
import { ConfigError } from '../config/errors.js';
import type { BridgeConfig } from '../config/load.js';
import { demoTools } from '../demo/demo-toolkit.js';
import type { Logger } from '../platform/log.js';
import { Metrics } from '../platform/metrics.js';
import { startHttpFace } from '../forward/face/http.js';
import { bridgeConsoleMount } from './forward-console.js';
import { metricsTokenOf } from '../forward/face/ops-routes.js';
import { InboundAuth, inboundAuthConfig, oauthConfigProblem, unsafeExposure } from '../forward/face/inbound-auth.js';
import type { ServerIdentity, StdioEnd } from '../forward/face/mcp-server-sdk.js';
import { requestStateKey } from '../forward/face/request-state.js';
import { isLoopbackHost } from '../platform/net/loopback.js';
import { createOxpApp } from '../reverse/face/app.js';
import { listen, type ListeningServer } from '../reverse/face/listen.js';
import { LocalToolSource } from '../demo/local-tools.js';
import { loadInStages } from '../platform/shared/staged-load.js';
import { loadCallLibraries } from '../forward/bridge/call-libraries.js';
import { VERSION } from '../platform/version.js';

export { VERSION } from '../platform/version.js';

export interface RunningBridge {
  /** The MCP endpoint URL (HTTP transport only). */
  mcpUrl?: string;
  /** The (first) OXP upstream in use (the demo toolkit's URL when embedded). */
  upstreamUrl: string;
  bridge: Bridge;
  metrics: Metrics;
  /** The audit trail (off unless configured): the call path writes one record per decision; closed by close(). */
  audit: AuditSink;
  /**
   * Graceful shutdown, step one: readiness turns 503 at once; requests are
   * still served for `delayMs`, then refused (HTTP: 503 with Retry-After;
   * stdio: stdin is no longer read); waits for those in flight, up to
   * `deadlineMs` from now. Resolves with how many were still running at the
   * deadline (0 = all completed).
   */
  drain(delayMs: number, deadlineMs: number): Promise<number>;
  /** The tool calls running now (a stop that waits no more says how many it abandons). */
  callsInFlight(): Promise<number>;
  /**
   * Stops waiting for them (a second SIGINT during the drain): closes the MCP face now, which aborts each call still
   * running as its client going away does, then lets each record itself as cancelled (its log line, its audit
   * record), up to `settleMs`. The rest (upstreams, the audit trail) stays open for the exit to flush.
   */
  abandon(settleMs: number): Promise<void>;
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

/** The MCP face the bridge serves through, whichever transport. */
interface Face {
  url?: string;
  stdioClosed?: Promise<StdioEnd>;
  inFlight: () => number;
  drain(delayMs: number, deadlineMs: number): Promise<number>;
  close(): Promise<void>;
}

/** The keys a reload cannot change in a running process. */
const RESTART_ONLY = ['transport', 'host', 'port', 'auth', 'http', 'store', 'audit'] as const;
/** Of `tasks`, only `enabled` and the store's bounds need a restart; ttls, polling and taskAfterMs apply to new tasks at once. */

/**
 * @param env where `OXP_SECRET_<ID>` and `{env: NAME}` sources are read at
 *   call time (the process environment unless given).
 */
export async function startBridge(config: BridgeConfig, log: Logger, env: NodeJS.ProcessEnv = process.env): Promise<RunningBridge> {
  const inboundAuth = checkedInboundAuth(config, env);
  const audit = createAuditSink(config.audit, log, { stdoutIsProtocol: config.transport === 'stdio' });
  const demo = await startDemoUpstream(config, log);
  let [face, upstreams, tasks]: [Face | undefined, UpstreamSet | undefined, TaskCalls | undefined] = [undefined, undefined, undefined];
  const metrics = new Metrics({
    catalogTools: () => (upstreams?.all ?? []).map((u) => ({ upstream: u.name, tools: u.catalog.status.tools })),
    circuits: () => (upstreams?.all ?? []).map((u) => ({ upstream: u.name, state: u.breaker.state })),
    queuedCalls: () => (upstreams?.all ?? []).map((u) => ({ upstream: u.name, calls: u.client.queuedCalls })),
    inFlight: () => face?.inFlight() ?? 0,
    audit: () => (audit.kind === 'off' ? undefined : audit.stats()),
    taskStoreAvailable: () => tasks?.lifecycle.store.availability?.state.available,
  });
  const userAgent = `mcp-oxp-bridge/${VERSION}`;
  const settingsOf = (c: BridgeConfig) => warnUnbound(upstreamSettings(c, env, userAgent, demo?.url), env, log);
  const create = (settings: UpstreamSettings) => new Upstream(settings, log, metrics, env);
  const initial = settingsOf(config).map(create);
  upstreams = new UpstreamSet(initial, config.tasks.enabled);
  await Promise.all(initial.map((u) => u.start()));
  const access = new ToolAccess(new AccessPolicy(config.access), config.auth.anonymous);
  const limits = await openCallLimits(config.store, log, { inc: () => metrics.limitStoreFailures.inc() });
  const gate: ForwardGate = new CallGate({ access, limits, audit, metrics, log });
  const bridge = new Bridge(upstreams, log, bridgeOptions(config), metrics, gate);
  tasks = config.tasks.enabled ? await startTasks(config, bridge, { metrics, audit, log }) : undefined;
  face = await startFace(config, bridge, inboundAuth, metrics, log);

  const applyConfig = configReloader(config, { upstreams, bridge, settingsOf, create }, log);
  const running: RunningBridge = {
    upstreamUrl: initial[0]!.settings.url,
    bridge,
    applyConfig,
    metrics,
    audit,
    drain: async (delayMs, deadlineMs) => {
      const left = await face.drain(delayMs, deadlineMs);
      if (left > 0) log.warn({ in_flight: left }, 'drain deadline passed with requests still in flight');
      else log.info('drained: no request in flight');
      return left;
    },
    // The calls still running once the event loop has turned: waiting no longer for them.
    callsInFlight: () => bridge.drain(0),
    abandon: async (settleMs) => {
      await face.close();
      await bridge.drain(settleMs);
    },
    close: async () => {
      await face.close();
      tasks?.lifecycle.stopAll();
      await tasks?.lifecycle.store.close();
      await upstreams.close();
      await limits.close();
      await demo?.close();
      await audit.close();
    },
  };
  if (face.url) running.mcpUrl = face.url;
  if (face.stdioClosed) running.stdioClosed = face.stdioClosed;
  return running;
}

/**
 * A configuration reload applied to the running parts: upstreams reconciled (unchanged ones keep their pools and
 * catalogs), page size, the access policy (clients whose view changed are told), the log level. Returns the keys that
 * only take effect after a restart; `settingsOf` throws (and nothing changes) when the new upstreams are invalid.
 */
function configReloader(
  initial: BridgeConfig,
  parts: {
    upstreams: UpstreamSet;
    bridge: Bridge;
    settingsOf: (c: BridgeConfig) => UpstreamSettings[];
    create: (settings: UpstreamSettings) => Upstream;
  },
  log: Logger,
): (next: BridgeConfig) => Promise<string[]> {
  const { upstreams, bridge } = parts;
  let current = initial;
  return async (next) => {
    const { started, removed } = await upstreams.reconcile(parts.settingsOf(next), parts.create);
    bridge.updateOptions({
      pageSize: next.catalog.pageSize,
      listTtlMs: next.catalog.refreshSeconds * 1000,
      authorizationHeaderPrefix: next.requirements.authorizationHeaderPrefix.toLowerCase(),
    });
    bridge.tasks?.updateSettings({ ...next.tasks, enabled: current.tasks.enabled });
    await bridge.updateAccess(new AccessPolicy(next.access), next.auth.anonymous);
    log.level = next.logLevel;
    // auth.anonymous applies at once (updateAccess); the rest of auth needs a restart.
    const asRunning = (c: BridgeConfig, k: (typeof RESTART_ONLY)[number]) => JSON.stringify(k === 'auth' ? { ...c.auth, anonymous: undefined } : c[k]);
    const restartOnly = RESTART_ONLY.filter((k) => asRunning(current, k) !== asRunning(next, k));
    current = next;
    const names = (list: readonly Upstream[]) => list.map((u) => u.name);
    log.info({ upstreams: names(upstreams.all), started: names(started), removed: names(removed) }, 'configuration reloaded');
    if (restartOnly.length) log.warn({ keys: restartOnly }, 'configuration keys changed that take effect only after a restart');
    return restartOnly;
  };
}

/** Checked before anything listens: an unauthenticated endpoint stays on loopback unless the operator opts out. */
function checkedInboundAuth(config: BridgeConfig, env: NodeJS.ProcessEnv): InboundAuth {
  const authConfig = inboundAuthConfig(config);
  if (config.transport === 'http') {
    const refusal = unsafeExposure(config.host, authConfig, isLoopbackHost);
    if (refusal) throw new ConfigError(refusal);
  }
  const oauthProblem = oauthConfigProblem(authConfig);
  if (oauthProblem) throw new ConfigError(oauthProblem);
  return new InboundAuth(authConfig, undefined, env);
}

/** No upstream configured: the demo toolkit, served on loopback by the OXP face, is the upstream. */
async function startDemoUpstream(config: BridgeConfig, log: Logger): Promise<ListeningServer | undefined> {
  if (config.upstream.url || config.upstreams?.length) return undefined;
  const demo = await listen(createOxpApp(new LocalToolSource(demoTools()), { maxBodyBytes: 1_048_576, log }), '127.0.0.1', 0);
  log.info({ upstream: DEMO_UPSTREAM.name, upstream_url: demo.url }, 'no OXP upstream configured (--oxp-url / OXP_URL): serving the embedded demo toolkit');
  return demo;
}

/** With several upstreams an OXP_SECRET_<ID> reaches only those granted it: say which ones none may read. */
function warnUnbound(settings: UpstreamSettings[], env: NodeJS.ProcessEnv, log: Logger): UpstreamSettings[] {
  const variables = unboundSecretVariables(
    settings.map((s) => s.requirements),
    env,
  );
  if (variables.length)
    log.warn(
      { variables },
      'no upstream is granted these secrets (add the ids to upstreams[].grants.secrets); tools declaring them get a missing-requirement error',
    );
  return settings;
}

/**
 * MCP tasks (bridge/task-calls.ts): records in this process (bounded per principal and in total, expired by ttl),
 * driven here; the metrics count their states.
 */
async function startTasks(config: BridgeConfig, bridge: Bridge, out: { metrics: Metrics; audit: AuditSink; log: Logger }): Promise<TaskCalls> {
  const settings = config.tasks;
  const { metrics, log } = out;
  const store = await openTaskStore(settings, config.store.redis);
  store.availability?.onChange(logTaskStoreState(log));
  let holder = '';
  const lifecycle = new TaskLifecycle(
    store,
    { leaseMs: settings.leaseMs, maxResultBytes: settings.maxResultBytes, maxRedrives: settings.maxRedrives },
    {
      onStatus: (state) => metrics.countTask(state),
      ...taskEventHooks(() => holder, out),
      onError: (taskId, error) => log.error({ task_id: taskId, err: error instanceof Error ? error.message : String(error) }, 'task failed inside the bridge'),
    },
  );
  holder = lifecycle.holder;
  const tasks = new TaskCalls(bridge, lifecycle, settings, log);
  bridge.tasks = tasks;
  // A store shared by replicas: the tasks of a replica that died are taken over once their lease lapses.
  if (store.kind !== 'memory') lifecycle.redriveLapsed(settings.leaseMs / 3, (record) => tasks.resume(record));
  return tasks;
}

function bridgeOptions(config: BridgeConfig) {
  return {
    pageSize: config.catalog.pageSize,
    listTtlMs: config.catalog.refreshSeconds * 1000,
    maxValidators: config.catalog.maxValidators,
    progressIntervalMs: config.upstream.progressIntervalMs,
    authorizationPollMs: config.upstream.authorizationPollMs,
    authorizationWaitMs: config.upstream.authorizationWaitSeconds * 1000,
    authorizationHeaderPrefix: config.requirements.authorizationHeaderPrefix.toLowerCase(),
  };
}

/**
 * The MCP face: stdio, or the HTTP face. What /readyz does not need is loaded before the first call needs it (HTTP:
 * with the face's warm-up, after the first readiness answer; stdio: now), one module per turn of the event loop so a
 * request waits for one load at most.
 */
async function startFace(config: BridgeConfig, bridge: Bridge, auth: InboundAuth, metrics: Metrics, log: Logger): Promise<Face> {
  // requestState keys derive from the shared session secret, so every replica verifies every round.
  const identity: ServerIdentity = { name: 'mcp-oxp-bridge', version: VERSION, stateKey: requestStateKey(config.http.sessionSecret) };
  // What the first tools/call needs (undici, ajv: call-libraries.ts), loaded first; prom-client last, as the first
  // calls count without it (metrics.ts).
  const warmUp = { callPath: [() => loadCallLibraries(log)], later: [() => metrics.load()] };
  if (config.transport === 'stdio') {
    void loadInStages([...warmUp.callPath, ...warmUp.later]);
    // Loaded only for stdio: the SDK is not on the HTTP face's start-up path (http.ts loads it after listening).
    const { serveStdio } = await import('../forward/face/mcp-server-sdk.js');
    const handle = serveStdio(
      bridge,
      identity,
      (error) => log.debug({ err: error.message }, 'stdio endpoint reported'),
      config.http.shutdownGraceSeconds * 1000,
      (line) => log.warn({ reason: line.kind, bytes: line.bytes }, 'stdio: a line that is not a JSON-RPC message was answered with an error'),
      (backedUp, bytes) =>
        backedUp
          ? log.debug({ waiting_bytes: bytes }, 'stdio: the host is not reading its output: stdin is not read until it does')
          : log.debug({ most_waiting_bytes: bytes }, 'stdio: the host has read its output: reading stdin again'),
    );
    log.info('MCP stdio transport ready');
    // Nothing routes to stdio: no delay. stdin is read no more; what was read is answered, then the calls still running end.
    const drain = async (_delayMs: number, deadlineMs: number) => {
      const until = Date.now() + deadlineMs;
      const unanswered = await handle.drain(deadlineMs);
      return Math.max(unanswered, await bridge.drain(Math.max(0, until - Date.now())));
    };
    return { stdioClosed: handle.closed, inFlight: () => 0, drain, close: () => handle.close() };
  }
  if (config.http.fastPath !== undefined)
    log.warn('http.fastPath (--fast-path, MCP_FAST_PATH) is deprecated and ignored: every MCP request goes through one pipeline');
  const metricsToken = metricsTokenOf(config.http);
  // The console is this command's to mount (forward-console.ts), as the oxp-server command mounts its own.
  const mount = config.console.enabled ? bridgeConsoleMount(bridge, identity, auth, metrics, config.console) : undefined;
  const options = { ...config.http, ...(metricsToken ? { metricsToken } : {}), mount, host: config.host, port: config.port, auth, metrics };
  const face = await startHttpFace(bridge, identity, options, log, warmUp);
  return { url: face.url, inFlight: () => face.inFlight, drain: (delayMs, deadlineMs) => face.drain(delayMs, deadlineMs), close: () => face.close() };
}
