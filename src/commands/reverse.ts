/**
 * Wires the OXP → MCP direction together (the `oxp-server` subcommand):
 * OXP client → reverse/face/ (the OXP HTTP face, auth) → reverse/bridge/mcp-upstreams.ts (the
 * MCP servers as one ToolSource) → reverse/client/ → MCP servers
 * (stdio children, Streamable HTTP, HTTP+SSE).
 */
import { createAuditSink, type AuditSink } from '../calls/audit/sink.js';
import { ConfigError, type BridgeConfig } from '../config/load.js';
import { AccessPolicy } from '../core/access-policy.js';
import type { Logger } from '../platform/log.js';
import { isLoopbackHost } from '../platform/net/loopback.js';
import { DrainPhase } from '../platform/net/drain-phase.js';
import { createOxpApp, type ReverseGate } from '../reverse/face/app.js';
import { CallGate } from '../calls/gate.js';
import type { OxpToolEntry } from '../core/mcp-to-oxp.js';
import { staticCredentials } from '../config/value-source.js';
import { OxpAccess } from '../reverse/face/access.js';
import { openCallLimits } from '../calls/limits/open-call-limits.js';
import type { CallLimits } from '../calls/limits/call-limits.js';
import { OxpServerAuth } from '../reverse/face/inbound-auth.js';
import { listen, type ListeningServer } from '../reverse/face/listen.js';
import { McpUpstreams } from '../reverse/bridge/mcp-upstreams.js';
import type { UpstreamStatus } from '../reverse/bridge/upstream.js';
import { oxpServerConsole } from '../console/oxp-server-console.js';

export interface RunningOxpServer {
  /** Base URL of the OXP server (`GET {url}/tools`). */
  url: string;
  upstreams: McpUpstreams;
  /** The audit trail (off unless configured): the call path writes one record per decision; closed by close(). */
  audit: AuditSink;
  /**
   * A reloaded configuration: `access`, `auth.anonymous` and `logLevel` apply at once; resolves with the changed keys
   * that need a restart (also logged).
   */
  applyConfig(next: BridgeConfig): Promise<string[]>;
  /**
   * Each MCP server as it stands once its first connection attempt has ended (named as its tools are, with its tool
   * count, or why it is not reachable yet): for the start line. Undefined once the server began stopping first.
   */
  firstConnections(): Promise<UpstreamStatus[] | undefined>;
  /**
   * Graceful shutdown, step one: `/health` turns 503 at once; requests are still served for `delayMs`, then answered
   * 503 (Retry-After, `Connection: close`); waits for those being answered, up to `deadlineMs` from now; resolves with
   * those left. The listener accepts until close().
   */
  drain(delayMs: number, deadlineMs: number): Promise<number>;
  /** The tool calls running now (a stop that waits no more says how many it abandons). */
  callsInFlight(): Promise<number>;
  /** Stops waiting for them: closes the OXP clients' connections now, then lets each aborted call record itself as cancelled (up to `settleMs`). */
  abandon(settleMs: number): Promise<void>;
  /** Closes every connection now (calls still running are aborted) and the MCP servers. */
  close(): Promise<void>;
}

/** @param env where `{env: NAME}` sources (named API keys) are read (the process environment unless given). */
export async function startOxpServer(config: BridgeConfig, log: Logger, version: string, env: NodeJS.ProcessEnv = process.env): Promise<RunningOxpServer> {
  const c = config.oxpServer;
  if (c.upstreams.length === 0)
    throw new ConfigError('oxp-server needs at least one MCP server: --mcp-url URL, --mcp-command "CMD ARGS", or oxpServer.upstreams in the config file');
  const auth = checkedAuth(c, env);
  const audit = createAuditSink(config.audit, log, { stdoutIsProtocol: false });
  const upstreams = new McpUpstreams(
    c.upstreams,
    {
      clientName: 'mcp-oxp-bridge',
      clientVersion: version,
      connectTimeoutMs: c.connectTimeoutMs,
      callTimeoutMs: c.callTimeoutMs,
      taskCallTimeoutMs: c.taskCallTimeoutMs,
      refreshSeconds: c.refreshSeconds,
      reconnectMaxMs: c.reconnectMaxMs,
    },
    log,
  );
  const access = new OxpAccess(new AccessPolicy(config.access), config.auth.anonymous);
  // This command has no /metrics: a limit store's failures are told by its warning lines.
  const limits = await openCallLimits(config.store, log, { inc: () => undefined });
  const operatorConsole = config.console.enabled ? oxpServerConsole(upstreams, auth, c.host, config.console, version) : undefined;
  const gate: ReverseGate<OxpToolEntry> = new CallGate({ access, limits, audit, log });
  if (operatorConsole) gate.observer = operatorConsole.observer;
  const drain = new DrainPhase();
  const app = createOxpApp(upstreams, { maxBodyBytes: c.maxRequestBodyBytes, maxValidators: c.maxValidators, auth, gate, log, drain });
  const served = operatorConsole ? operatorConsole.wrap(app) : app;
  let server;
  try {
    server = await listen(
      (req, res) => {
        drain.closeConnectionsOf(res);
        served(req, res);
      },
      c.host,
      c.port,
      c,
    );
  } catch (error) {
    await upstreams.close();
    await limits.close();
    await audit.close();
    throw error;
  }
  // Listening first: upstreams connect in the background (/health shows each one's state), so none delays start-up.
  upstreams.start();
  log.info(
    {
      url: server.url,
      auth: auth.required ? [c.apiKeys?.length ? 'api-key' : '', c.jwtSecret ? 'jwt' : ''].filter(Boolean) : 'none',
      // How many: their names are their servers' own (or the toolkits given), known as each connects ('connected to MCP server').
      upstreams: c.upstreams.length,
    },
    'OXP server listening',
  );
  return runningOxpServer(server, { upstreams, audit, access, limits, config, gate, drain }, log);
}

/** The two-step shutdown the command runs: drain (logged), then close the server, the MCP servers and the audit trail. */
function runningOxpServer(
  server: ListeningServer,
  {
    upstreams,
    audit,
    access,
    limits,
    config,
    gate,
    drain,
  }: {
    upstreams: McpUpstreams;
    audit: AuditSink;
    access: OxpAccess;
    limits: CallLimits;
    config: BridgeConfig;
    gate: ReverseGate<OxpToolEntry>;
    drain: DrainPhase;
  },
  log: Logger,
): RunningOxpServer {
  let stopping: () => void = () => undefined;
  const stopped = new Promise<undefined>((resolve) => (stopping = () => resolve(undefined)));
  return {
    url: server.url,
    upstreams,
    audit,
    applyConfig: reloader(config, access, upstreams, log),
    firstConnections: () => Promise.race([upstreams.settled().then(() => upstreams.status()), stopped]),
    drain: async (delayMs, deadlineMs) => {
      stopping();
      await drain.begin(delayMs);
      const left = await server.drain(Math.max(0, deadlineMs - delayMs));
      if (left > 0) log.warn({ in_flight: left }, 'drain deadline passed with requests still in flight');
      else log.info('drained: no request in flight');
      return left;
    },
    callsInFlight: () => Promise.resolve(gate.callsInFlight),
    abandon: async (settleMs) => {
      drain.refuseNow();
      // Closing the OXP clients' connections aborts each call still running: it ends, and is recorded, as cancelled.
      await server.close();
      await gate.idle(settleMs);
    },
    close: async () => {
      stopping();
      await server.close();
      await upstreams.close();
      await limits.close();
      await audit.close();
    },
  };
}

/** The OXP clients' authentication, checked before anything starts: an unauthenticated OXP server stays on loopback unless the operator opts out. */
export function checkedAuth(c: BridgeConfig['oxpServer'], env: NodeJS.ProcessEnv): OxpServerAuth {
  const apiKeys = staticCredentials(c.apiKeys ?? [], 'api-key', 'oxpServer.apiKeys', env);
  const auth = new OxpServerAuth({ apiKeys, ...(c.jwtSecret ? { jwtSecret: c.jwtSecret } : {}), jwtAudiences: c.jwtAudiences });
  if (!auth.required && !isLoopbackHost(c.host) && !c.allowUnauthenticated) {
    throw new ConfigError(
      `oxp-server would listen on ${c.host} without authentication: set OXP_SERVER_API_KEYS or OXP_SERVER_JWT_SECRET, listen on 127.0.0.1, or pass --allow-unauthenticated true`,
    );
  }
  return auth;
}

/** The keys of the configuration the oxp-server reads only at start-up (the rest of it is the forward command's). */
const RESTART_ONLY = ['oxpServer', 'console', 'store', 'audit'] as const;

/** Applies what a reload may change in a running oxp-server: who may call what, who the anonymous caller is, the log level. */
function reloader(running: BridgeConfig, access: OxpAccess, upstreams: McpUpstreams, log: Logger): (next: BridgeConfig) => Promise<string[]> {
  return (next) => {
    access.update(new AccessPolicy(next.access), next.auth.anonymous);
    upstreams.recheckPolicyKeys();
    log.level = next.logLevel;
    // Compared with what runs, not with the previous file: a change still waiting for a restart is named at every reload.
    const restartOnly = RESTART_ONLY.filter((k) => JSON.stringify(running[k]) !== JSON.stringify(next[k]));
    log.info({ access_rules: next.access.rules.length, default: next.access.default }, 'configuration reloaded');
    if (restartOnly.length) log.warn({ keys: restartOnly }, 'configuration keys changed that take effect only after a restart');
    return Promise.resolve(restartOnly);
  };
}
