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
import { toolSelector } from '../../core/merge.js';
import { ownValue, unmatchedPolicyKeys } from '../../core/mcp-to-oxp-policy.js';
import type { McpTool } from '../../core/mcp-wire.js';
import type { UnavailableBody } from '../../core/oxp-wire.js';
import type { Logger } from '../../platform/log.js';
import type { CatalogState } from '../face/tool-source.js';
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
    this.nameUpstreams();
    const { tools, dropped } = screenMcpTools(listed);
    const reasons = new Set(dropped.map((d) => `${d.name}: ${d.reason}`));
    for (const d of dropped) {
      if (!upstream.dropped?.has(`${d.name}: ${d.reason}`))
        this.log.warn({ upstream: upstream.label, tool: d.name, reason: d.reason }, 'MCP tool left out of the catalog');
    }
    upstream.dropped = reasons;
    // A tool the policy leaves out is not published anyway: nothing to say about it.
    const selected = toolSelector(upstream.listing.policy ?? {});
    for (const tool of tools) {
      const reason = selected([tool.name]) ? unpublishableReason(tool, upstream.listing.toolTasks === true) : undefined;
      if (reason && !upstream.unpublished.has(tool.name)) {
        upstream.unpublished.add(tool.name);
        this.log.warn({ upstream: upstream.label, tool: tool.name }, `MCP tool not published: ${reason}`);
      }
    }
    upstream.tools = tools;
    upstream.listedAt = Date.now();
    this.catalog = buildOxpCatalog(this.upstreams.flatMap((u) => (u.tools ? [{ ...u.listing, tools: u.tools }] : [])));
    this.checkPolicyKeys(upstream, tools);
  }

  /**
   * Tool policy keys that name none of the tools just listed do nothing: said once each (again if one matched
   * meanwhile, and at every configuration reload: `again`).
   */
  checkPolicyKeys(upstream: Upstream, tools: readonly McpTool[], again = false): void {
    const { policy, perTool } = upstream.listing;
    if (!policy?.rename && !policy?.descriptions && !perTool) return;
    const published = this.catalog
      .filter((e) => e.upstream === upstream.index)
      .map((e) => ({
        mcpName: e.mcpName,
        wanted: ownValue(policy?.rename, e.mcpName) ?? e.mcpName,
        name: String(e.definition.name),
        key: e.key,
        version: e.version,
      }));
    const unmatched = unmatchedPolicyKeys(policy, Object.keys(perTool ?? {}), tools, published);
    const fresh = again ? unmatched : unmatched.filter((k) => !upstream.unmatchedKeys?.has(k));
    upstream.unmatchedKeys = new Set(unmatched);
    if (fresh.length)
      this.log.warn(
        { upstream: upstream.label, keys: fresh },
        'tool policy keys that name no tool of this MCP server: they do nothing (see docs/oxp-server.md, Tool policy)',
      );
  }

  /** Each upstream's toolkit, as its tools have it: the one configured, else from its server's name once it has answered. */
  private toolkits(): Map<number, string> {
    return assignToolkits(this.upstreams.filter((u) => u.listing.toolkit ?? u.listing.serverName).map((u) => ({ ...u.listing })));
  }

  /**
   * Every upstream named as its tools are (`Everything`, not the `node` that runs it): a server that answered may
   * change the names of the others (two servers of one name are `X` and `X_2`).
   */
  private nameUpstreams(): void {
    const toolkits = this.toolkits();
    for (const u of this.upstreams) u.label = toolkits.get(u.index) ?? u.location;
  }

  /** `/health`: per upstream its toolkit, state and tool count; never URLs, commands or error text (the endpoint is public). */
  health(): JsonObject {
    // A toolkit derived from the server's name is known once the server has answered; until then it is null.
    const toolkits = this.toolkits();
    return {
      upstreams: this.upstreams.map((u) => ({
        toolkit: toolkits.get(u.index) ?? null,
        state: stateOf(u),
        tools: u.tools ? this.catalog.filter((e) => e.upstream === u.index).length : 0,
      })),
    };
  }

  /**
   * How whole the catalog is (`GET /tools`): the upstreams that have not listed their tools yet (a first connection
   * under way or failed; one that listed once keeps its last tools while it is away), and, when none has, the 503:
   * an empty list would read as "this server has no tools" to a client that loads it once.
   */
  state(retryAfterMs: (upstream: Upstream) => number): CatalogState {
    const waiting = this.upstreams.filter((u) => u.tools === undefined);
    if (waiting.length < this.upstreams.length) return { pending: waiting.length };
    const connecting = waiting.filter((u) => !u.attempted).length;
    const n = waiting.length;
    return {
      pending: n,
      unavailable: {
        message: `No tools yet: ${n === 1 ? 'the MCP server has not' : `none of the ${n} MCP servers has`} listed its tools yet (${connecting ? 'still connecting' : 'reconnecting'}). Try again shortly.`,
        can_retry: true,
        retry_after_ms: Math.min(...waiting.map(retryAfterMs)),
      },
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
