/**
 * The connection lifecycle of the MCP servers behind the oxp-server: each
 * connects on its own (reverse/client/), is re-listed on list_changed and
 * periodically, and is reconnected after it is lost. This module only
 * decides when to (re)connect; what the tools become is the catalog's.
 *
 * - Start-up never waits for upstreams: each connects on its own, and the
 *   catalog grows as they list their tools; one slow or broken server
 *   delays nobody.
 * - Reconnection: exponential backoff from 500 ms to `reconnectMaxMs`, and
 *   one immediate attempt when a call needs a lost upstream. A failed
 *   attempt is logged at warn once per outage (and every STILL_DOWN_WARN_MS),
 *   the others at debug.
 */
import { DEFAULT_RETRY_AFTER_MS } from '../../core/mcp-to-oxp.js';
import type { Logger } from '../../platform/log.js';
import { describe } from '../client/describe-error.js';
import { connectMcp, type McpConnection } from '../client/mcp-client-sdk.js';
import { McpProcessExited } from '../client/stdio-exit.js';
import { untilAborted } from '../../platform/shared/until-aborted.js';
import type { UpstreamCatalog } from './upstream-catalog.js';
import type { Upstream } from './upstream.js';

export interface ConnectionOptions {
  clientName: string;
  clientVersion: string;
  connectTimeoutMs: number;
  refreshSeconds: number;
  reconnectMinMs?: number;
  reconnectMaxMs: number;
}

export class UpstreamConnections {
  private periodic?: NodeJS.Timeout;
  private closed = false;
  /** Aborted by close(): connections still being opened are given up and what they started is closed. */
  private readonly closing = new AbortController();

  constructor(
    private readonly upstreams: readonly Upstream[],
    private readonly catalog: UpstreamCatalog,
    private readonly options: ConnectionOptions,
    private readonly log: Logger,
  ) {}

  /** Starts connecting to every upstream (each on its own; failures are retried in the background) and the refresh timer. */
  start(): void {
    for (const u of this.upstreams) void this.connect(u);
    this.periodic = setInterval(() => void this.refreshAll(), this.options.refreshSeconds * 1000).unref();
  }

  /** Resolves once every upstream's first connection attempt has ended. */
  async settled(): Promise<void> {
    while (this.upstreams.some((u) => !u.attempted) && !this.closed) await Promise.all(this.upstreams.map((u) => u.connecting ?? Promise.resolve()));
  }

  /** How long until a reconnection attempt has likely happened. */
  retryAfterMs(upstream: Upstream): number {
    if (upstream.retryAt === undefined) return DEFAULT_RETRY_AFTER_MS;
    return Math.min(this.options.reconnectMaxMs, Math.max(DEFAULT_RETRY_AFTER_MS, upstream.retryAt - Date.now()));
  }

  /** A call needs a lost upstream: try at once, unless an attempt just failed. */
  reconnectNow(upstream: Upstream): Promise<McpConnection | undefined> {
    if (upstream.connecting) return upstream.connecting;
    if (Date.now() - upstream.lastAttempt < (this.options.reconnectMinMs ?? 500)) return Promise.resolve(undefined);
    return this.connect(upstream);
  }

  /** `connection` failed (closed, a refresh or a call found no server): the upstream is lost and reconnected later. */
  lost(upstream: Upstream, connection: McpConnection, reason: string, stderrTail?: string): void {
    if (upstream.connection !== connection) return;
    upstream.connection = undefined;
    upstream.lastError = reason;
    // The child's stderr only in this line (bounded, see reverse/client/stdio-exit.ts), never in lastError: that reaches OXP clients.
    this.log.warn({ upstream: upstream.label, reason, ...(stderrTail ? { stderr: stderrTail } : {}) }, 'lost the MCP server; reconnecting');
    void connection.close().catch(() => undefined);
    this.scheduleReconnect(upstream);
  }

  /** Re-reads one upstream's tools; a failure means the upstream is gone. */
  async refresh(upstream: Upstream): Promise<void> {
    const connection = upstream.connection;
    if (!connection || upstream.refreshing) return;
    upstream.refreshing = true;
    try {
      const tools = await connection.listTools(this.options.connectTimeoutMs);
      if (upstream.connection === connection) this.catalog.setTools(upstream, tools);
    } catch (error) {
      this.lost(upstream, connection, describe(error));
    } finally {
      upstream.refreshing = false;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.periodic);
    for (const u of this.upstreams) clearTimeout(u.retry);
    // A connection still being opened is given up rather than waited for (a server that never speaks MCP would hold
    // shutdown for the whole connect timeout), and what it started is closed before this resolves: a stdio child
    // left running would outlive the process.
    this.closing.abort();
    await Promise.all(
      this.upstreams.map(async (u) => {
        await u.connecting?.catch(() => undefined);
        const connection = u.connection;
        u.connection = undefined;
        await connection?.close().catch(() => undefined);
      }),
    );
  }

  // ------------------------------------------------------------- internals

  private connect(upstream: Upstream): Promise<McpConnection | undefined> {
    if (upstream.connection) return Promise.resolve(upstream.connection);
    upstream.connecting ??= this.open(upstream).finally(() => {
      upstream.connecting = undefined;
      upstream.attempted = true;
    });
    return upstream.connecting;
  }

  private async open(upstream: Upstream): Promise<McpConnection | undefined> {
    if (this.closed) return undefined;
    clearTimeout(upstream.retry);
    upstream.retry = undefined;
    upstream.lastAttempt = Date.now();
    let connection: McpConnection | undefined;
    try {
      connection = await connectMcp(upstream.target, {
        clientName: this.options.clientName,
        clientVersion: this.options.clientVersion,
        connectTimeoutMs: this.options.connectTimeoutMs,
        onToolsChanged: (tools) => {
          if (upstream.connection !== connection) return;
          this.log.info({ upstream: upstream.label, tools: tools.length }, 'MCP server changed its tools');
          this.catalog.setTools(upstream, tools);
        },
        onClosed: (reason, stderrTail) => {
          if (connection) this.lost(upstream, connection, reason, stderrTail);
        },
        onStderr: (line) => this.log.debug({ upstream: upstream.label, stderr: line }, 'MCP server stderr'),
        onError: (error) => this.log.debug({ upstream: upstream.label, err: error.message }, 'MCP client reported'),
        signal: this.closing.signal,
      });
      const tools = await untilAborted(connection.listTools(this.options.connectTimeoutMs), this.closing.signal, 'closing');
      if (this.closed) {
        await connection.close();
        return undefined;
      }
      this.connected(upstream, connection, tools);
      return connection;
    } catch (error) {
      await connection?.close().catch(() => undefined);
      if (!this.closed) this.failed(upstream, error);
      return undefined;
    }
  }

  /**
   * A connection attempt failed: retried later, with backoff. Said at warn the first time (a stdio child's exit with
   * its code and its last words), then at debug, with a warn again once per STILL_DOWN_WARN_MS while it stays down:
   * an upstream that never comes (a placeholder URL) does not fill the log. Each line says when the next attempt is.
   */
  private failed(upstream: Upstream, error: unknown): void {
    upstream.failures++;
    upstream.lastError = describe(error);
    this.scheduleReconnect(upstream);
    const now = Date.now();
    const level = failureLogLevel(upstream.failures, upstream.warnedAt, now);
    if (level === 'warn') upstream.warnedAt = now;
    const next = upstream.retryAt === undefined ? {} : { retry_in_ms: upstream.retryAt - now, next_attempt_at: new Date(upstream.retryAt).toISOString() };
    const fields = { upstream: upstream.label, err: upstream.lastError, attempt: upstream.failures, ...next, ...exitFields(error) };
    if (level === 'warn' && upstream.failures > 1) this.log.warn(fields, `still cannot connect to MCP server (${upstream.failures} attempts so far)`);
    else this.log[level](fields, 'cannot connect to MCP server');
  }

  /** A connection opened and listed: the upstream takes it, and what the server said of itself. */
  private connected(upstream: Upstream, connection: McpConnection, tools: unknown[]): void {
    upstream.connection = connection;
    upstream.failures = 0;
    delete upstream.warnedAt;
    delete upstream.lastError;
    upstream.listing = {
      ...upstream.listing,
      ...(connection.serverName !== undefined ? { serverName: connection.serverName } : {}),
      ...(connection.serverVersion !== undefined ? { serverVersion: connection.serverVersion } : {}),
      toolTasks: connection.toolTasks,
    };
    this.catalog.setTools(upstream, tools);
    this.log.info(
      {
        upstream: upstream.label,
        era: connection.era,
        protocolVersion: connection.protocolVersion,
        transport: connection.transport,
        server: connection.serverName,
        tools: tools.length,
      },
      'connected to MCP server',
    );
  }

  private scheduleReconnect(upstream: Upstream): void {
    if (this.closed || upstream.retry || upstream.connection) return;
    const min = this.options.reconnectMinMs ?? 500;
    const ceiling = Math.min(this.options.reconnectMaxMs, min * 2 ** Math.min(upstream.failures, 16));
    const delay = Math.max(min, Math.round(ceiling * (0.5 + Math.random() / 2)));
    upstream.retryAt = Date.now() + delay;
    upstream.retry = setTimeout(() => {
      upstream.retry = undefined;
      upstream.retryAt = undefined;
      void this.connect(upstream);
    }, delay).unref();
  }

  private async refreshAll(): Promise<void> {
    await Promise.all(this.upstreams.map((u) => (u.connection ? this.refresh(u) : Promise.resolve())));
  }
}

/** A stdio child's exit as log fields: its code (or signal) and the end of its stderr (bounded; the log only). */
function exitFields(error: unknown): Record<string, unknown> {
  if (!(error instanceof McpProcessExited)) return {};
  return {
    ...(error.exit.signal ? { exit_signal: error.exit.signal } : { exit_code: error.exit.code }),
    ...(error.stderrTail ? { stderr: error.stderrTail } : {}),
  };
}

/** While an upstream stays down, how often its failed attempts are said at warn again (the others at debug). */
export const STILL_DOWN_WARN_MS = 10 * 60_000;

/** The level of a failed attempt's line: the first of an outage at warn, then debug, and warn once per STILL_DOWN_WARN_MS. */
export function failureLogLevel(failures: number, warnedAt: number | undefined, now: number): 'warn' | 'debug' {
  if (failures <= 1 || warnedAt === undefined) return 'warn';
  return now - warnedAt >= STILL_DOWN_WARN_MS ? 'warn' : 'debug';
}
