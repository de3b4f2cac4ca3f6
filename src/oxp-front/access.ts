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
import { AccessPolicy, type AccessDecision, type PrincipalView, type ToolFacts } from '../core/access-policy.js';
import { anonymousPrincipal, type AnonymousSettings, type Principal } from '../core/principal.js';
import { ToolIndex } from './catalog-index.js';
import type { SourceTool } from './tool-source.js';

const ALLOWED: AccessDecision = { allow: true };

/** Distinct policy views kept per catalog: bounded, so callers cannot grow it without limit. */
const MAX_VIEWS = 256;

export function toolFacts(tool: SourceTool): ToolFacts {
  return {
    name: tool.mcpName ?? (typeof tool.definition.name === 'string' ? tool.definition.name : tool.key),
    oxpId: tool.key,
    upstream: tool.key.slice(0, tool.key.indexOf('.')),
  };
}

export class OxpAccess {
  /** Per catalog index, per policy view key: the index of what those principals may call. */
  private visible = new WeakMap<ToolIndex<SourceTool>, Map<string, ToolIndex<SourceTool>>>();
  /**
   * Per principal object: its view. An API key's principal and the anonymous one are the same object at every
   * request, so their requests skip matching every rule against them (a JWT's is new per request).
   */
  private views = new WeakMap<Principal, PrincipalView>();
  private nobody: Principal;

  constructor(
    private policy: AccessPolicy = new AccessPolicy(),
    anonymous?: AnonymousSettings,
  ) {
    this.nobody = anonymousPrincipal(anonymous);
  }

  /** Who a request is when nobody authenticated (no authentication configured, or an open route). */
  get anonymous(): Principal {
    return this.nobody;
  }

  /** A reload: later lists and calls follow the new policy. */
  update(policy: AccessPolicy, anonymous?: AnonymousSettings): void {
    this.policy = policy;
    this.nobody = anonymousPrincipal(anonymous);
    this.visible = new WeakMap();
    this.views = new WeakMap();
  }

  private viewOf(principal: Principal): PrincipalView {
    let view = this.views.get(principal);
    if (!view) this.views.set(principal, (view = this.policy.view(principal)));
    return view;
  }

  /** The part of `all` this principal may call: `all` itself while no rule is configured. */
  indexFor<T extends SourceTool>(all: ToolIndex<T>, principal: Principal): ToolIndex<T> {
    if (!this.policy.active) return all;
    const view = this.viewOf(principal);
    let byView = this.visible.get(all);
    if (!byView) this.visible.set(all, (byView = new Map<string, ToolIndex<SourceTool>>()));
    let index = byView.get(view.key);
    if (!index) {
      index = new ToolIndex(all.tools.filter((tool) => this.policy.decide(view, toolFacts(tool)).allow));
      if (byView.size >= MAX_VIEWS) byView.clear();
      byView.set(view.key, index);
    }
    // Built from `all`'s own tools, so it holds T's.
    return index as ToolIndex<T>;
  }

  /** Why a tool is hidden from this principal (for the log: which rule denied it). */
  decide(tool: SourceTool, principal: Principal): AccessDecision {
    if (!this.policy.active) return ALLOWED;
    return this.policy.decide(this.viewOf(principal), toolFacts(tool));
  }
}
