/**
 * The MCP servers behind the oxp-server, as the one ToolSource the OXP face
 * (reverse/face/) serves. Each job has its module in this folder:
 * upstream.ts (one server's record and status), upstream-connections.ts
 * (connecting, list_changed and periodic refresh, reconnecting),
 * upstream-catalog.ts (the OXP catalog across servers, `/health`) and
 * upstream-call.ts (running a call). Translation is core/mcp-to-oxp.ts's.
 *
 * - A lost or not-yet-connected upstream: its (last) tools stay listed and
 *   a call gets 503 with `can_retry` rather than "not found"; an id whose
 *   toolkit belongs to an upstream that has not listed yet gets the same.
 * - `GET /tools` is 503 until some upstream has listed its tools, then the
 *   tools of those that have, with how many have not (catalogState).
 */
import type { OxpToolEntry } from '../../core/mcp-to-oxp.js';
import type { JsonObject } from '../../core/json.js';
import type { OxpServerReply, UnavailableBody } from '../../core/oxp-wire.js';
import type { Logger } from '../../platform/log.js';
import type { CatalogState, SourceCall, ToolSource } from '../face/tool-source.js';
import type { UpstreamConfig } from '../../config/oxp-server-settings.js';
import { callUpstream, type CallDeadlines } from './upstream-call.js';
import { UpstreamCatalog } from './upstream-catalog.js';
import { UpstreamConnections, type ConnectionOptions } from './upstream-connections.js';
import { statusOf, upstreamOf, type Upstream, type UpstreamStatus } from './upstream.js';

export { CALL_META_KEY, CONTEXT_META_KEY } from './upstream-call.js';
export type { UpstreamState, UpstreamStatus } from './upstream.js';

export interface McpUpstreamsOptions extends ConnectionOptions, CallDeadlines {}

export class McpUpstreams implements ToolSource<OxpToolEntry> {
  private readonly upstreams: Upstream[];
  private readonly catalog: UpstreamCatalog;
  private readonly connections: UpstreamConnections;

  constructor(
    configs: readonly UpstreamConfig[],
    private readonly options: McpUpstreamsOptions,
    log: Logger,
  ) {
    this.upstreams = configs.map(upstreamOf);
    this.catalog = new UpstreamCatalog(this.upstreams, log);
    this.connections = new UpstreamConnections(this.upstreams, this.catalog, options, log);
  }

  /**
   * Starts connecting to every upstream (each on its own; failures are
   * retried in the background) and the refresh timer. Returns at once:
   * `settled()` tells when every first attempt has ended.
   */
  start(): void {
    this.connections.start();
  }

  /** Resolves once every upstream's first connection attempt has ended (for tests and tools that want a full catalog). */
  settled(): Promise<void> {
    return this.connections.settled();
  }

  tools(): readonly OxpToolEntry[] {
    return this.catalog.tools();
  }

  ready(): boolean {
    return this.upstreams.some((u) => u.connection !== undefined);
  }

  health(): JsonObject {
    return this.catalog.health();
  }

  catalogState(): CatalogState {
    return this.catalog.state((u) => this.connections.retryAfterMs(u));
  }

  notListedYet(key: string): UnavailableBody | undefined {
    return this.catalog.notListedYet(key, (u) => this.connections.retryAfterMs(u));
  }

  status(): UpstreamStatus[] {
    return this.upstreams.map(statusOf);
  }

  /** The log label of the upstream at `index` (a catalog entry's `upstream`). */
  labelOf(index: number): string | undefined {
    return this.upstreams[index]?.label;
  }

  call(entry: OxpToolEntry, input: JsonObject, call: SourceCall): Promise<OxpServerReply> {
    return callUpstream(this.upstreams[entry.upstream]!, entry, input, call, this.connections, this.options);
  }

  /** A configuration reload: every tool policy key that still names no listed tool is said again. */
  recheckPolicyKeys(): void {
    for (const u of this.upstreams) if (u.tools) this.catalog.checkPolicyKeys(u, u.tools, true);
  }

  close(): Promise<void> {
    return this.connections.close();
  }
}
