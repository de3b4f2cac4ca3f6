/**
 * The access policy (core/access-policy.ts) applied to the OXP face: which
 * of a catalog's tools a principal may call. What a principal may call is
 * served as its own ToolIndex (catalog-index.ts), so `GET /tools` lists only
 * those tools and `POST /tools/call` looks ids up only among them: a tool
 * the policy hides is an unknown id in every answer the face gives (400,
 * the 503 of a server that has not listed yet, never a 422), by
 * construction rather than by a second code path that would have to keep
 * in step with the first.
 *
 * What the patterns of a rule's `tools` match here: `names` the tool's name
 * on its MCP server (SourceTool.mcpName; a source without one, the
 * embedded demo toolkit, its OXP `name`), `oxpIds` the published
 * `Toolkit.Tool` id without version, `upstreams` the toolkit.
 *
 * Reloadable: `update` swaps the policy and who an anonymous caller is;
 * the indexes built for the old policy are dropped with it.
 */
import type { AccessDecision, ToolFacts } from '../../core/access-policy.js';
import { ALLOWED, AccessViews } from '../../core/access-views.js';
import type { Principal } from '../../core/principal.js';
import { ToolIndex } from './catalog-index.js';
import type { SourceTool } from './tool-source.js';

export function toolFacts(tool: SourceTool): ToolFacts {
  return {
    name: tool.mcpName ?? (typeof tool.definition.name === 'string' ? tool.definition.name : tool.key),
    oxpId: tool.key,
    upstream: tool.key.slice(0, tool.key.indexOf('.')),
  };
}

/** Views, caches and reload are core/access-views.ts's, shared with the forward direction. */
export class OxpAccess extends AccessViews {
  /** The part of `all` this principal may call: `all` itself while no rule is configured. */
  indexFor<T extends SourceTool>(all: ToolIndex<T>, principal: Principal): ToolIndex<T> {
    if (!this.active) return all;
    return this.visibleIn(all, '', principal, (allows) => new ToolIndex(all.tools.filter((tool) => allows(toolFacts(tool)))));
  }

  /** Why a tool is hidden from this principal (for the log and the audit trail: which rule denied it). */
  decide(tool: SourceTool, principal: Principal): AccessDecision {
    if (!this.active) return ALLOWED;
    return this.decideFacts(toolFacts(tool), principal);
  }
}
