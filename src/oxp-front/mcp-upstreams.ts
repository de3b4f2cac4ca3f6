/**
 * The MCP servers behind the oxp-server, as one ToolSource: connects to each
 * (mcp-client/), keeps their tool lists (list_changed, periodic refresh),
 * reconnects after an upstream restarts, and runs calls. Translation is
 * core/mcp-to-oxp.ts's; this module only decides when to (re)connect.
 *
 * - Start-up never waits for upstreams: each connects on its own, and the
 *   catalog grows as they list their tools; one slow or broken server
 *   delays nobody.
 * - A lost or not-yet-connected upstream: its (last) tools stay listed and
 *   a call gets 503 with `can_retry` rather than "not found"; an id whose
 *   toolkit belongs to an upstream that has not listed yet gets the same.
 * - Reconnection: exponential backoff from 500 ms to `reconnectMaxMs`, and
 *   one immediate attempt when a call needs a lost upstream.
 * - A call is repeated once on a fresh connection only when the server
 *   provably did not run it (connection refused, lost session).
 */
import { buildOxpCatalog, DEFAULT_RETRY_AFTER_MS, toOxpReply, type McpCallOutcome, type OxpToolEntry, type UpstreamListing } from '../core/mcp-to-oxp.js';
import { assignToolkits, unpublishableReason } from '../core/mcp-to-oxp-names.js';
import type { JsonObject } from '../core/json.js';
import type { McpTool } from '../core/mcp-wire.js';
import { screenMcpTools } from '../core/mcp-tools.js';
import { decodeRequirements } from '../core/oxp-decode.js';
import type { OxpServerReply, UnavailableBody } from '../core/oxp-wire.js';
import type { Logger } from '../log.js';
import { connectMcp, describe, TRACEPARENT_META_KEY, type McpConnection, type McpTarget } from '../mcp-client/mcp-sdk.js';
import { ATTR, EXECUTE_TOOL } from '../telemetry/attributes.js';
import { tracer } from '../telemetry/tracer.js';
import { perToolSettings, policyOf, targetOf, upstreamLabel, type UpstreamConfig } from './config.js';
import type { SourceCall, ToolSource } from './tool-source.js';
import { untilAborted } from '../shared/until-aborted.js';

/** The `_meta` key carrying the OXP context a tool declared (secrets, tokens, user id). */
export const CONTEXT_META_KEY = 'mcp-oxp-bridge/oxp-context';
/** The `_meta` key carrying the OXP `call_id` (and `trace_id`), for the server's logs and idempotency. */
export const CALL_META_KEY = 'mcp-oxp-bridge/oxp-call';

export interface McpUpstreamsOptions {
  clientName: string;
  clientVersion: string;
  connectTimeoutMs: number;
  callTimeoutMs: number;
  refreshSeconds: number;
  reconnectMinMs?: number;
  reconnectMaxMs: number;
}

/** `connecting`: first attempt under way; `connected`; `reconnecting`: lost or failed, retried with backoff. */
export type UpstreamState = 'connecting' | 'connected' | 'reconnecting';

export interface UpstreamStatus {
  label: string;
  state: UpstreamState;
  connected: boolean;
  era?: 'legacy' | 'modern';
  protocolVersion?: string;
  transport?: string;
  tools: number;
  lastError?: string;
  /** When the server's tools were last read (ms since epoch). */
  listedAt?: number;
}

interface Upstream {
  index: number;
  label: string;
  config: UpstreamConfig;
  target: McpTarget;
  listing: Omit<UpstreamListing, 'tools'>;
  connection?: McpConnection;
  connecting?: Promise<McpConnection | undefined>;
  tools?: readonly McpTool[];
  /** `name: reason` of the tools last left out, so each is logged once, not on every refresh. */
  dropped?: ReadonlySet<string>;
  failures: number;
  lastAttempt: number;
  lastError?: string;
  retry?: NodeJS.Timeout;
  /** When the scheduled reconnection runs (ms since epoch). */
  retryAt?: number;
  refreshing?: boolean;
  /** The first connection attempt has ended (either way). */
  attempted?: boolean;
  /** Tools already reported as not published (logged once each). */
  unpublished: Set<string>;
  listedAt?: number;
}

export class McpUpstreams implements ToolSource<OxpToolEntry> {
  private readonly upstreams: Upstream[];
  private catalog: readonly OxpToolEntry[] = [];
  private periodic?: NodeJS.Timeout;
  private closed = false;
  /** Aborted by close(): connections still being opened are given up and what they started is closed. */
  private readonly closing = new AbortController();

  constructor(
    configs: readonly UpstreamConfig[],
    private readonly options: McpUpstreamsOptions,
    private readonly log: Logger,
  ) {
    this.upstreams = configs.map((config, index) => {
      const requirements = decodeRequirements(config.requirements);
      const settings = perToolSettings(config);
      const policy = policyOf(config);
      const perTool = settings.length
        ? Object.fromEntries(
            settings.map(([name, t]) => {
              const toolRequirements = decodeRequirements(t.requirements);
              return [name, { ...(t.version ? { version: t.version } : {}), ...(toolRequirements ? { requirements: toolRequirements } : {}) }];
            }),
          )
        : undefined;
      const listing: Omit<UpstreamListing, 'tools'> = {
        upstream: index,
        ...(config.toolkit ? { toolkit: config.toolkit } : {}),
        ...(config.version ? { version: config.version } : {}),
        ...(requirements ? { requirements } : {}),
        ...(perTool ? { perTool } : {}),
        ...(policy ? { policy } : {}),
      };
      return { index, label: upstreamLabel(config), config, target: targetOf(config), listing, failures: 0, lastAttempt: 0, unpublished: new Set<string>() };
    });
  }

  /**
   * Starts connecting to every upstream (each on its own; failures are
   * retried in the background) and the refresh timer. Returns at once:
   * `settled()` tells when every first attempt has ended.
   */
  start(): void {
    for (const u of this.upstreams) void this.connect(u);
    this.periodic = setInterval(() => void this.refreshAll(), this.options.refreshSeconds * 1000).unref();
  }

  /** Resolves once every upstream's first connection attempt has ended (for tests and tools that want a full catalog). */
  async settled(): Promise<void> {
    while (this.upstreams.some((u) => !u.attempted) && !this.closed) await Promise.all(this.upstreams.map((u) => u.connecting ?? Promise.resolve(undefined)));
  }

  tools(): readonly OxpToolEntry[] {
    return this.catalog;
  }

  ready(): boolean {
    return this.upstreams.some((u) => u.connection !== undefined);
  }

  /** `/health`: per upstream its toolkit, state and tool count; never URLs, commands or error text (the endpoint is public). */
  health(): JsonObject {
    // A toolkit derived from the server's name is known once the server has answered; until then it is null.
    const toolkits = assignToolkits(this.upstreams.filter((u) => u.listing.toolkit ?? u.listing.serverName).map((u) => ({ ...u.listing })));
    return {
      upstreams: this.upstreams.map((u) => ({ toolkit: toolkits.get(u.index) ?? null, state: stateOf(u), tools: u.tools ? this.catalog.filter((e) => e.upstream === u.index).length : 0 })),
    };
  }

  /** An unknown id while some upstream has not listed its tools yet: 503, as its tools may be among them. */
  notListedYet(key: string): UnavailableBody | undefined {
    const toolkit = key.split('.')[0]!;
    const waiting = this.upstreams.filter((u) => u.tools === undefined && (u.config.toolkit === undefined || u.config.toolkit === toolkit));
    if (waiting.length === 0) return undefined;
    const named = waiting.find((u) => u.config.toolkit === toolkit);
    return {
      message: named
        ? `The tool server of toolkit ${toolkit} has not connected yet, so ${key} is not known yet. Try again shortly.`
        : `${key} is not known yet: ${waiting.length} tool server(s) have not connected yet. Try again shortly.`,
      can_retry: true,
      retry_after_ms: Math.min(...waiting.map((u) => this.retryAfterMs(u))),
    };
  }

  status(): UpstreamStatus[] {
    return this.upstreams.map((u) => ({
      label: u.label,
      state: stateOf(u),
      connected: u.connection !== undefined,
      ...(u.connection ? { era: u.connection.era, transport: u.connection.transport } : {}),
      ...(u.connection?.protocolVersion ? { protocolVersion: u.connection.protocolVersion } : {}),
      tools: u.tools?.length ?? 0,
      ...(u.lastError ? { lastError: u.lastError } : {}),
      ...(u.listedAt ? { listedAt: u.listedAt } : {}),
    }));
  }

  /** The log label of the upstream at `index` (a catalog entry's `upstream`). */
  labelOf(index: number): string | undefined {
    return this.upstreams[index]?.label;
  }

  async call(entry: OxpToolEntry, input: JsonObject, call: SourceCall): Promise<OxpServerReply> {
    const upstream = this.upstreams[entry.upstream]!;
    const meta: JsonObject = { [CALL_META_KEY]: { call_id: call.callId, ...(call.traceId ? { trace_id: call.traceId } : {}) } };
    if (call.context) meta[CONTEXT_META_KEY] = call.context;
    const attempt = async (): Promise<McpCallOutcome> => {
      const connection = upstream.connection ?? (await this.reconnectNow(upstream));
      if (!connection) return { kind: 'unreachable', detail: upstream.lastError ?? 'not connected', retryable: true, retryAfterMs: this.retryAfterMs(upstream) };
      // The MCP call's client span; the server continues it from `_meta.traceparent`.
      const span = tracer().start(`tools/call ${entry.mcpTool.name}`, { kind: 'client', parent: call.span });
      const callMeta = span.traceparent ? { ...meta, [TRACEPARENT_META_KEY]: span.traceparent } : meta;
      // callTool classifies every failure into an outcome (it never throws).
      const outcome = await connection.callTool(entry.mcpTool, input, { signal: call.signal, timeoutMs: this.options.callTimeoutMs, meta: callMeta });
      if (span.recording) {
        const kind = outcome.kind === 'result' ? (outcome.result.isError ? 'tool_error' : 'success') : outcome.kind;
        span.set({ [ATTR.mcpMethod]: 'tools/call', [ATTR.operation]: EXECUTE_TOOL, [ATTR.toolName]: entry.mcpTool.name, [ATTR.upstream]: upstream.label, [ATTR.mcpProtocolVersion]: connection.protocolVersion, [ATTR.outcome]: kind });
        if (outcome.kind === 'rpc_error') span.set({ [ATTR.rpcStatus]: String(outcome.code) });
        if (kind !== 'success') span.fail(kind);
      }
      span.end();
      // A call the OXP client abandoned says nothing about the upstream.
      if (outcome.kind === 'unreachable' && !call.signal.aborted) this.lost(upstream, connection, outcome.detail);
      return outcome;
    };
    let outcome = await attempt();
    if (outcome.kind === 'unreachable' && outcome.retryable && !call.signal.aborted && upstream.connection) outcome = await attempt();
    const { reply, toolGone } = toOxpReply(outcome, entry);
    if (toolGone) void this.refresh(upstream);
    return reply;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.periodic);
    for (const u of this.upstreams) clearTimeout(u.retry);
    // A connection still being opened is given up rather than waited for (a server that never speaks MCP would hold
    // shutdown for the whole connect timeout), and what it started is closed before this resolves: a stdio child
    // left running would outlive the process.
    this.closing.abort();
    await Promise.all(this.upstreams.map(async (u) => {
      await u.connecting?.catch(() => undefined);
      const connection = u.connection;
      u.connection = undefined;
      await connection?.close().catch(() => undefined);
    }));
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

  /** How long until a reconnection attempt has likely happened. */
  private retryAfterMs(upstream: Upstream): number {
    if (upstream.retryAt === undefined) return DEFAULT_RETRY_AFTER_MS;
    return Math.min(this.options.reconnectMaxMs, Math.max(DEFAULT_RETRY_AFTER_MS, upstream.retryAt - Date.now()));
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
          this.setTools(upstream, tools);
        },
        onClosed: (reason) => {
          if (connection) this.lost(upstream, connection, reason);
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
      upstream.connection = connection;
      upstream.failures = 0;
      delete upstream.lastError;
      upstream.listing = {
        ...upstream.listing,
        ...(connection.serverName !== undefined ? { serverName: connection.serverName } : {}),
        ...(connection.serverVersion !== undefined ? { serverVersion: connection.serverVersion } : {}),
      };
      this.setTools(upstream, tools);
      this.log.info(
        { upstream: upstream.label, era: connection.era, protocolVersion: connection.protocolVersion, transport: connection.transport, server: connection.serverName, tools: tools.length },
        'connected to MCP server',
      );
      return connection;
    } catch (error) {
      await connection?.close().catch(() => undefined);
      if (this.closed) return undefined;
      upstream.failures++;
      upstream.lastError = describe(error);
      this.log.warn({ upstream: upstream.label, err: upstream.lastError, attempt: upstream.failures }, 'cannot connect to MCP server');
      this.scheduleReconnect(upstream);
      return undefined;
    }
  }

  /** A call needs a lost upstream: try at once, unless an attempt just failed. */
  private reconnectNow(upstream: Upstream): Promise<McpConnection | undefined> {
    if (upstream.connecting) return upstream.connecting;
    if (Date.now() - upstream.lastAttempt < (this.options.reconnectMinMs ?? 500)) return Promise.resolve(undefined);
    return this.connect(upstream);
  }

  private lost(upstream: Upstream, connection: McpConnection, reason: string): void {
    if (upstream.connection !== connection) return;
    upstream.connection = undefined;
    upstream.lastError = reason;
    this.log.warn({ upstream: upstream.label, reason }, 'lost the MCP server; reconnecting');
    void connection.close().catch(() => undefined);
    this.scheduleReconnect(upstream);
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
    await Promise.all(this.upstreams.map((u) => this.refresh(u)));
  }

  /** Re-reads one upstream's tools; a failure means the upstream is gone. */
  private async refresh(upstream: Upstream): Promise<void> {
    const connection = upstream.connection;
    if (!connection || upstream.refreshing) return;
    upstream.refreshing = true;
    try {
      const tools = await connection.listTools(this.options.connectTimeoutMs);
      if (upstream.connection === connection) this.setTools(upstream, tools);
    } catch (error) {
      this.lost(upstream, connection, describe(error));
    } finally {
      upstream.refreshing = false;
    }
  }

  /**
   * Screens what the server listed (a malformed or oversized tool is dropped, with a log line, never the whole
   * server), logs the tools the OXP face does not publish (e.g. task-required ones), and rebuilds the catalog.
   */
  private setTools(upstream: Upstream, listed: readonly unknown[]): void {
    const { tools, dropped } = screenMcpTools(listed);
    const reasons = new Set(dropped.map((d) => `${d.name}: ${d.reason}`));
    for (const d of dropped) {
      if (!upstream.dropped?.has(`${d.name}: ${d.reason}`)) this.log.warn({ upstream: upstream.label, tool: d.name, reason: d.reason }, 'MCP tool left out of the catalog');
    }
    upstream.dropped = reasons;
    for (const tool of tools) {
      const reason = unpublishableReason(tool);
      if (reason && !upstream.unpublished.has(tool.name)) {
        upstream.unpublished.add(tool.name);
        this.log.warn({ upstream: upstream.label, tool: tool.name }, `MCP tool not published: ${reason}`);
      }
    }
    upstream.tools = tools;
    upstream.listedAt = Date.now();
    this.catalog = buildOxpCatalog(this.upstreams.flatMap((u) => (u.tools ? [{ ...u.listing, tools: u.tools }] : [])));
  }
}

function stateOf(u: Upstream): UpstreamState {
  return u.connection ? 'connected' : u.attempted ? 'reconnecting' : 'connecting';
}
