/**
 * The access policy as both directions apply it (pure, no I/O): who an
 * unauthenticated caller is, each principal reduced once to its policy view
 * (cached by principal object: a static token's or an API key's principal,
 * and the anonymous one, are one object for all their requests), decisions,
 * and what a catalog holds for a caller, built once per catalog, variant and
 * view (bounded) rather than per request. A reload (`update`) drops every
 * cache with the old policy.
 *
 * The forward direction (forward/bridge/tool-access.ts) and the OXP face
 * (reverse/face/access.ts) extend it with what their catalogs look like.
 */
import { AccessPolicy, type AccessDecision, type PrincipalView, type ToolFacts } from './access-policy.js';
import { anonymousPrincipal, type AnonymousSettings, type Principal } from './principal.js';

/** Distinct views kept per catalog: bounded, so callers cannot grow it without limit. */
const MAX_VIEWS = 256;

export const ALLOWED: AccessDecision = { allow: true };

export class AccessViews {
  private views = new WeakMap<Principal, PrincipalView>();
  private visible = new WeakMap<object, Map<string, unknown>>();
  private nobody: Principal;

  constructor(
    private policy: AccessPolicy = new AccessPolicy(),
    anonymous?: AnonymousSettings,
  ) {
    this.nobody = anonymousPrincipal(anonymous);
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

  /** Who a request is when nobody authenticated (stdio, no authentication configured, an open route). */
  get anonymous(): Principal {
    return this.nobody;
  }

  /** A reload: later lists and calls follow the new policy. */
  update(policy: AccessPolicy, anonymous?: AnonymousSettings): void {
    this.policy = policy;
    this.nobody = anonymousPrincipal(anonymous);
    this.views = new WeakMap();
    this.visible = new WeakMap();
  }

  principalOf(principal: Principal | undefined): Principal {
    return principal ?? this.nobody;
  }

  viewOf(principal: Principal | undefined): PrincipalView {
    const who = this.principalOf(principal);
    let view = this.views.get(who);
    if (!view) this.views.set(who, (view = this.policy.view(who)));
    return view;
  }

  protected decideFacts(facts: ToolFacts, principal: Principal | undefined): AccessDecision {
    if (!this.policy.active) return ALLOWED;
    return this.policy.decide(this.viewOf(principal), facts);
  }

  /** Each tool's decision for one principal, its view made once. */
  protected decideAll<T>(tools: readonly T[], facts: (tool: T) => ToolFacts, principal: Principal | undefined): AccessDecision[] {
    if (!this.policy.active) return tools.map(() => ALLOWED);
    const view = this.viewOf(principal);
    return tools.map((tool) => this.policy.decide(view, facts(tool)));
  }

  /**
   * What `catalog` holds for this principal (`variant` tells apart several per catalog, e.g. a revision), made by
   * `build` from the principal's view the first time any principal with that view asks.
   */
  protected visibleIn<R>(catalog: object, variant: string, principal: Principal | undefined, build: (decide: (facts: ToolFacts) => boolean) => R): R {
    const view = this.viewOf(principal);
    let byView = this.visible.get(catalog);
    if (!byView) this.visible.set(catalog, (byView = new Map<string, unknown>()));
    const key = `${variant}|${view.key}`;
    let found = byView.get(key) as R | undefined;
    if (found === undefined) {
      found = build((facts) => this.policy.decide(view, facts).allow);
      if (byView.size >= MAX_VIEWS) byView.clear();
      byView.set(key, found);
    }
    return found;
  }
}
