/**
 * The OXP catalog across every upstream: each server's listed tools
 * screened (a malformed or oversized tool is dropped with a log line, never
 * the whole server), then one catalog built by core/mcp-to-oxp.ts. Also what
 * the catalog says to the public: `/health`'s per-upstream summary and the
 * 503 for an id that an upstream not listed yet may hold.
 */
import { buildOxpCatalog, type OxpToolEntry } from '../../core/mcp-to-oxp.js';
import { assignToolkits, unpublishableReason } from '../../core/mcp-to-oxp-names.js';
import type { JsonObject } from '../../core/json.js';
import { screenMcpTools } from '../../core/mcp-tools.js';
import type { UnavailableBody } from '../../core/oxp-wire.js';
import type { Logger } from '../../platform/log.js';
import { stateOf, type Upstream } from './upstream.js';

export class UpstreamCatalog {
  private catalog: readonly OxpToolEntry[] = [];

  constructor(
    private readonly upstreams: readonly Upstream[],
    private readonly log: Logger,
  ) {}

  /** The current catalog; a new array whenever it changes. */
  tools(): readonly OxpToolEntry[] {
    return this.catalog;
  }

  /**
   * Screens what the server listed (a malformed or oversized tool is dropped, with a log line, never the whole
   * server), logs the tools the OXP face does not publish (e.g. task-required ones), and rebuilds the catalog.
   */
  setTools(upstream: Upstream, listed: readonly unknown[]): void {
    const { tools, dropped } = screenMcpTools(listed);
    const reasons = new Set(dropped.map((d) => `${d.name}: ${d.reason}`));
    for (const d of dropped) {
      if (!upstream.dropped?.has(`${d.name}: ${d.reason}`))
        this.log.warn({ upstream: upstream.label, tool: d.name, reason: d.reason }, 'MCP tool left out of the catalog');
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

  /** `/health`: per upstream its toolkit, state and tool count; never URLs, commands or error text (the endpoint is public). */
  health(): JsonObject {
    // A toolkit derived from the server's name is known once the server has answered; until then it is null.
    const toolkits = assignToolkits(this.upstreams.filter((u) => u.listing.toolkit ?? u.listing.serverName).map((u) => ({ ...u.listing })));
    return {
      upstreams: this.upstreams.map((u) => ({
        toolkit: toolkits.get(u.index) ?? null,
        state: stateOf(u),
        tools: u.tools ? this.catalog.filter((e) => e.upstream === u.index).length : 0,
      })),
    };
  }

  /** An unknown id while some upstream has not listed its tools yet: 503, as its tools may be among them. */
  notListedYet(key: string, retryAfterMs: (upstream: Upstream) => number): UnavailableBody | undefined {
    const toolkit = key.split('.')[0]!;
    const waiting = this.upstreams.filter((u) => u.tools === undefined && (u.config.toolkit === undefined || u.config.toolkit === toolkit));
    if (waiting.length === 0) return undefined;
    const named = waiting.find((u) => u.config.toolkit === toolkit);
    return {
      message: named
        ? `The tool server of toolkit ${toolkit} has not connected yet, so ${key} is not known yet. Try again shortly.`
        : `${key} is not known yet: ${waiting.length} tool server(s) have not connected yet. Try again shortly.`,
      can_retry: true,
      retry_after_ms: Math.min(...waiting.map(retryAfterMs)),
    };
  }
}
