/**
 * The access policy applied to the forward direction's catalog: which of a
 * snapshot's tools a principal sees (cached per snapshot, revision and
 * policy view, so a 7,500-tool list is filtered once per kind of caller, not
 * per request) and whether it may call one. The views, caches and reload
 * are core/access-views.ts's, shared with the OXP face.
 */
import type { AccessDecision, ToolFacts } from '../../core/access-policy.js';
import { ALLOWED, AccessViews } from '../../core/access-views.js';
import { closestName } from '../../core/closest-name.js';
import type { CatalogEntry } from '../../core/catalog.js';
import type { McpRevision } from '../../core/mcp-versions.js';
import type { McpTool } from '../../core/mcp-wire.js';
import type { Principal } from '../../core/principal.js';
import type { CatalogSnapshot } from './catalog-service.js';

export function toolFacts(entry: CatalogEntry): ToolFacts {
  return { name: entry.name, oxpId: entry.tool.key, upstream: entry.upstream ?? '' };
}

export class ToolAccess extends AccessViews {
  /** The tools of `snapshot` this principal may call, projected for `version`, in catalog order. */
  toolsFor(snapshot: CatalogSnapshot, revision: McpRevision, principal: Principal | undefined): McpTool[] {
    const all = snapshot.toolsFor(revision);
    if (!this.active) return all;
    const entries = snapshot.catalog.entries;
    return this.visibleIn(snapshot, revision, principal, (allows) => all.filter((_, i) => allows(toolFacts(entries[i]!))));
  }

  /**
   * The tool a mistyped `name` most likely meant, among those this principal sees at `version` only: a tool the
   * policy hides is never suggested (its name would tell it exists).
   */
  closestVisible(snapshot: CatalogSnapshot, revision: McpRevision, principal: Principal | undefined, name: string): string | undefined {
    return closestName(
      name,
      this.toolsFor(snapshot, revision, principal).map((tool) => tool.name),
    );
  }

  decide(entry: CatalogEntry, principal: Principal | undefined): AccessDecision {
    // Checked first: without rules a call builds no facts at all (this is on every tools/call).
    if (!this.active) return ALLOWED;
    return this.decideFacts(toolFacts(entry), principal);
  }

  /** Each entry's decision for one principal, its view made once (the console's Tools view, `doctor --token`). */
  decideEach(entries: readonly CatalogEntry[], principal: Principal | undefined): AccessDecision[] {
    return this.decideAll(entries, toolFacts, principal);
  }
}
