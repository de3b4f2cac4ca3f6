/**
 * The access policy applied to the forward direction's catalog: which of a
 * snapshot's tools a principal sees (cached per snapshot, revision and
 * policy view, so a 7,500-tool list is filtered once per kind of caller, not
 * per request) and whether it may call one.
 */
import { AccessPolicy, type AccessDecision, type PrincipalView, type ToolFacts } from '../core/access-policy.js';
import type { CatalogEntry } from '../core/catalog.js';
import type { McpVersion } from '../core/mcp-versions.js';
import type { McpTool } from '../core/mcp-wire.js';
import { anonymousPrincipal, type AnonymousSettings, type Principal } from '../core/principal.js';
import type { CatalogSnapshot } from './catalog-service.js';

/** Distinct policy views kept per snapshot and revision: bounded, so callers cannot grow it without limit. */
const MAX_VIEWS = 256;

export function toolFacts(entry: CatalogEntry): ToolFacts {
  return { name: entry.name, oxpId: entry.tool.key, upstream: entry.upstream ?? '' };
}

export class ToolAccess {
  private visible = new WeakMap<CatalogSnapshot, Map<string, McpTool[]>>();
  private anonymous: Principal;

  constructor(
    private policy: AccessPolicy,
    anonymous?: AnonymousSettings,
  ) {
    this.anonymous = anonymousPrincipal(anonymous);
  }

  /** The policy's configuration (a reload compares it with the next). */
  get config() {
    return this.policy.config;
  }

  get active(): boolean {
    return this.policy.active;
  }

  get dependsOnCaller(): boolean {
    return this.policy.dependsOnCaller;
  }

  /** A reload: later lists and calls follow the new policy (cached views are dropped with the old one). */
  update(policy: AccessPolicy, anonymous?: AnonymousSettings): void {
    this.policy = policy;
    this.anonymous = anonymousPrincipal(anonymous);
    this.visible = new WeakMap();
    this.views = new WeakMap();
  }

  /** Who a request without an authenticated principal is (stdio, or no authentication). */
  principalOf(principal: Principal | undefined): Principal {
    return principal ?? this.anonymous;
  }

  /** Views of principals seen, by object: a static token's principal is one object for every request it makes. */
  private views = new WeakMap<Principal, PrincipalView>();

  viewOf(principal: Principal | undefined): PrincipalView {
    const who = this.principalOf(principal);
    let view = this.views.get(who);
    if (!view) this.views.set(who, (view = this.policy.view(who)));
    return view;
  }

  /** The tools of `snapshot` this principal may call, projected for `version`, in catalog order. */
  toolsFor(snapshot: CatalogSnapshot, version: McpVersion, principal: Principal | undefined): McpTool[] {
    const all = snapshot.toolsFor(version);
    if (!this.policy.active) return all;
    const view = this.viewOf(principal);
    let byView = this.visible.get(snapshot);
    if (!byView) this.visible.set(snapshot, (byView = new Map<string, McpTool[]>()));
    const key = `${version}|${view.key}`;
    let tools = byView.get(key);
    if (!tools) {
      const entries = snapshot.catalog.entries;
      tools = all.filter((_, i) => this.policy.decide(view, toolFacts(entries[i]!)).allow);
      if (byView.size >= MAX_VIEWS) byView.clear();
      byView.set(key, tools);
    }
    return tools;
  }

  decide(entry: CatalogEntry, principal: Principal | undefined): AccessDecision {
    if (!this.policy.active) return ALLOWED;
    return this.policy.decide(this.viewOf(principal), toolFacts(entry));
  }

  /** Each entry's decision for one principal, its view made once (the console's Tools view, `doctor --token`). */
  decideEach(entries: readonly CatalogEntry[], principal: Principal | undefined): AccessDecision[] {
    if (!this.policy.active) return entries.map(() => ALLOWED);
    const view = this.viewOf(principal);
    return entries.map((entry) => this.policy.decide(view, toolFacts(entry)));
  }
}

const ALLOWED: AccessDecision = { allow: true };
