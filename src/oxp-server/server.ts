/**
 * Wires the OXP → MCP direction together (the `oxp-server` subcommand):
 * OXP client → oxp-front/ (the OXP HTTP face, auth) → mcp-upstreams.ts (this
 * folder: the MCP servers as one ToolSource) → mcp-client/ → MCP servers
 * (stdio children, Streamable HTTP, HTTP+SSE).
 */
import { createAuditSink, type AuditSink } from '../audit/sink.js';
import { ConfigError, type BridgeConfig } from '../config/load.js';
import type { Logger } from '../log.js';
import { isLoopbackHost } from '../net/loopback.js';
import { createOxpApp } from '../oxp-front/app.js';
import { staticCredentials } from '../config/value-source.js';
import { OxpServerAuth } from '../oxp-front/auth.js';
import { listen, type ListeningServer } from '../oxp-front/listen.js';
import { McpUpstreams } from './mcp-upstreams.js';
import { oxpServerConsole } from '../console/oxp-server-console.js';

export interface RunningOxpServer {
  /** Base URL of the OXP server (`GET {url}/tools`). */
  url: string;
  upstreams: McpUpstreams;
  /** The audit trail (off unless configured): the call path writes one record per decision; closed by close(). */
  audit: AuditSink;
  /** Graceful shutdown, step one: stop taking connections, wait for the requests being answered up to `deadlineMs`; resolves with those left. */
  drain(deadlineMs: number): Promise<number>;
  /** Closes every connection now (calls still running are aborted) and the MCP servers. */
  close(): Promise<void>;
}

export async function startOxpServer(config: BridgeConfig, log: Logger, version: string): Promise<RunningOxpServer> {
  const c = config.oxpServer;
  const auth = checkedAuth(c);
  const audit = createAuditSink(config.audit, log, { stdoutIsProtocol: false });
  const upstreams = new McpUpstreams(
    c.upstreams,
    {
      clientName: 'mcp-oxp-bridge',
      clientVersion: version,
      connectTimeoutMs: c.connectTimeoutMs,
      callTimeoutMs: c.callTimeoutMs,
      refreshSeconds: c.refreshSeconds,
      reconnectMaxMs: c.reconnectMaxMs,
    },
    log,
  );
  const operatorConsole = config.console.enabled ? oxpServerConsole(upstreams, auth, c.host, config.console, version) : undefined;
  const app = createOxpApp(upstreams, {
    maxBodyBytes: c.maxRequestBodyBytes,
    maxValidators: c.maxValidators,
    auth,
    log,
    ...(operatorConsole ? { onCall: operatorConsole.onCall } : {}),
  });
  let server;
  try {
    server = await listen(operatorConsole ? operatorConsole.wrap(app) : app, c.host, c.port, c);
  } catch (error) {
    await upstreams.close();
    await audit.close();
    throw error;
  }
  // Listening first: upstreams connect in the background (/health shows each one's state), so none delays start-up.
  upstreams.start();
  log.info(
    {
      url: server.url,
      auth: auth.required ? [c.apiKeys?.length ? 'api-key' : '', c.jwtSecret ? 'jwt' : ''].filter(Boolean) : 'none',
      upstreams: upstreams.status().map((u) => u.label),
    },
    'OXP server listening',
  );
  return runningOxpServer(server, upstreams, audit, log);
}

/**
 * The OXP server's authentication, checked before anything starts: there must be an MCP server to serve, and an
 * unauthenticated OXP server stays on loopback unless the operator opts out.
 */
function checkedAuth(c: BridgeConfig['oxpServer']): OxpServerAuth {
  if (c.upstreams.length === 0)
    throw new ConfigError('oxp-server needs at least one MCP server: --mcp-url URL, --mcp-command "CMD ARGS", or oxpServer.upstreams in the config file');
  const apiKeys = staticCredentials(c.apiKeys ?? [], 'api-key', 'oxpServer.apiKeys', process.env);
  const auth = new OxpServerAuth({ apiKeys, ...(c.jwtSecret ? { jwtSecret: c.jwtSecret } : {}), jwtAudiences: c.jwtAudiences });
  if (!auth.required && !isLoopbackHost(c.host) && !c.allowUnauthenticated) {
    throw new ConfigError(
      `oxp-server would listen on ${c.host} without authentication: set OXP_SERVER_API_KEYS or OXP_SERVER_JWT_SECRET, listen on 127.0.0.1, or pass --allow-unauthenticated true`,
    );
  }
  return auth;
}

/** The two-step shutdown the command runs: drain (logged), then close the server, the MCP servers and the audit trail. */
function runningOxpServer(server: ListeningServer, upstreams: McpUpstreams, audit: AuditSink, log: Logger): RunningOxpServer {
  return {
    url: server.url,
    upstreams,
    audit,
    drain: async (deadlineMs) => {
      const left = await server.drain(deadlineMs);
      if (left > 0) log.warn({ in_flight: left }, 'drain deadline passed with requests still in flight');
      else log.info('drained: no request in flight');
      return left;
    },
    close: async () => {
      await server.close();
      await upstreams.close();
      await audit.close();
    },
  };
}
