/**
 * The access policy: which principal may see and call which tool (pure).
 *
 * Evaluation order (docs/security.md, "Access policy"): the rules are read
 * top to bottom and the first rule that matches both the principal and the
 * tool decides, allow or deny; when none matches, `default` decides (allow
 * unless configured otherwise, which keeps "every authenticated caller sees
 * everything"). A deny is invisible to the caller: the tool is left out of
 * its lists and a call to it is answered as an unknown tool's.
 *
 * Within one condition any listed value may match (names, groups, scopes,
 * kinds, a claim's values); across conditions all must (a rule for group
 * `ops` on upstream `billing`). Patterns are globs (`*`), matched in
 * bounded time (core/glob.ts), never regular expressions.
 *
 * Cost: a principal is reduced once to the set of rules whose principal part
 * it matches (`PrincipalView.key`, a string), and the tools it may see depend
 * only on that set, so listing caches by it and a call checks only those
 * rules' tool parts.
 */
import { anyGlob } from './glob.js';
import type { Principal, PrincipalKind } from './principal.js';

export interface RuleLimits {
  /** Sustained calls per minute (0 = no rate limit). */
  requestsPerMinute: number;
  /** Calls at once above the sustained rate. */
  burst: number;
  /** Calls running at once (0 = no cap). */
  maxInFlight: number;
  /** What one counter covers: each principal, each tool, or each principal on each tool. */
  per: 'principal' | 'tool' | 'principal-tool';
}

export interface AccessRuleConfig {
  id?: string;
  effect: 'allow' | 'deny';
  principals?: {
    names?: string[];
    groups?: string[];
    scopes?: string[];
    kinds?: PrincipalKind[];
    claims?: Record<string, string[]>;
  };
  tools?: { names?: string[]; oxpIds?: string[]; upstreams?: string[] };
  limits?: Partial<RuleLimits>;
}

export interface AccessPolicyConfig {
  default?: 'allow' | 'deny';
  /** Each principal's calls running at once, every tool together (0 or absent: no cap); the call gate applies it. */
  maxInFlightPerPrincipal?: number;
  rules?: AccessRuleConfig[];
}

/** A tool as the policy sees it: its MCP name, its OXP id (no version) and the upstream (toolkit) serving it. */
export interface ToolFacts {
  name: string;
  oxpId: string;
  upstream: string;
}

/** Which rule decided, for the audit trail and logs: its position (from 0) and its id when it has one. */
export interface RuleRef {
  index: number;
  id?: string;
}

export type AccessDecision = { allow: true; rule?: RuleRef; limits?: RuleLimits } | { allow: false; rule?: RuleRef };

interface CompiledRule {
  ref: RuleRef;
  allow: boolean;
  matchesPrincipal: (p: Principal) => boolean;
  matchesTool: (t: ToolFacts) => boolean;
  limits?: RuleLimits;
}

/** A principal as far as the policy can tell principals apart. */
export interface PrincipalView {
  /** Equal for principals the policy treats alike: a cache key for what they may see. */
  readonly key: string;
  readonly rules: readonly CompiledRule[];
}

export class AccessPolicy {
  /** False with no rules: every principal may see and call every tool, and nothing needs checking. */
  readonly active: boolean;
  /** True when what a principal sees can depend on who it is (a 2026-07-28 list is then `cacheScope: "private"`). */
  readonly dependsOnCaller: boolean;
  private readonly rules: CompiledRule[];
  private readonly defaultAllow: boolean;

  constructor(readonly config: AccessPolicyConfig = {}) {
    this.rules = (config.rules ?? []).map(compileRule);
    this.defaultAllow = (config.default ?? 'allow') === 'allow';
    this.active = this.rules.length > 0 || !this.defaultAllow;
    this.dependsOnCaller = (config.rules ?? []).some((r) => hasPrincipalCondition(r));
  }

  /** The rules that can apply to this principal, in order. */
  view(principal: Principal): PrincipalView {
    const rules = this.rules.filter((r) => r.matchesPrincipal(principal));
    return { key: rules.map((r) => r.ref.index).join(','), rules };
  }

  decide(view: PrincipalView, tool: ToolFacts): AccessDecision {
    for (const rule of view.rules) {
      if (!rule.matchesTool(tool)) continue;
      if (!rule.allow) return { allow: false, rule: rule.ref };
      return rule.limits ? { allow: true, rule: rule.ref, limits: rule.limits } : { allow: true, rule: rule.ref };
    }
    return this.defaultAllow ? { allow: true } : { allow: false };
  }
}

function hasPrincipalCondition(rule: AccessRuleConfig): boolean {
  const p = rule.principals;
  if (!p) return false;
  return Boolean(p.names?.length || p.groups?.length || p.scopes?.length || p.kinds?.length || (p.claims && Object.keys(p.claims).length));
}

function compileRule(rule: AccessRuleConfig, index: number): CompiledRule {
  const ref: RuleRef = rule.id !== undefined ? { index, id: rule.id } : { index };
  const compiled: CompiledRule = {
    ref,
    allow: rule.effect === 'allow',
    matchesPrincipal: principalMatcher(rule.principals),
    matchesTool: toolMatcher(rule.tools),
  };
  const limits = rule.limits;
  if (limits && ((limits.requestsPerMinute ?? 0) > 0 || (limits.maxInFlight ?? 0) > 0)) {
    const rpm = limits.requestsPerMinute ?? 0;
    compiled.limits = {
      requestsPerMinute: rpm,
      burst: limits.burst ?? Math.max(1, Math.ceil(rpm / 6)),
      maxInFlight: limits.maxInFlight ?? 0,
      per: limits.per ?? 'principal',
    };
  }
  return compiled;
}

/** All given conditions must hold; an absent or empty one holds for everybody. */
function principalMatcher(p: AccessRuleConfig['principals']): (principal: Principal) => boolean {
  const checks: Array<(principal: Principal) => boolean> = [];
  if (p?.names?.length) {
    const name = anyGlob(p.names);
    checks.push((x) => name(x.name));
  }
  if (p?.groups?.length) {
    const groups = new Set(p.groups);
    checks.push((x) => x.groups.some((g) => groups.has(g)));
  }
  if (p?.scopes?.length) {
    const scopes = new Set(p.scopes);
    checks.push((x) => x.scopes.some((s) => scopes.has(s)));
  }
  if (p?.kinds?.length) {
    const kinds = new Set<string>(p.kinds);
    checks.push((x) => kinds.has(x.kind));
  }
  for (const [claim, values] of Object.entries(p?.claims ?? {})) {
    const accepted = new Set(values);
    checks.push((x) => claimValues(x.claims?.[claim]).some((v) => accepted.has(v)));
  }
  return (principal) => checks.every((check) => check(principal));
}

function toolMatcher(t: AccessRuleConfig['tools']): (tool: ToolFacts) => boolean {
  const checks: Array<(tool: ToolFacts) => boolean> = [];
  if (t?.names?.length) {
    const names = anyGlob(t.names);
    checks.push((x) => names(x.name));
  }
  if (t?.oxpIds?.length) {
    const ids = anyGlob(t.oxpIds);
    checks.push((x) => ids(x.oxpId));
  }
  if (t?.upstreams?.length) {
    const upstreams = anyGlob(t.upstreams);
    checks.push((x) => upstreams(x.upstream));
  }
  return (tool) => checks.every((check) => check(tool));
}

/** A claim's values as strings: a string, a number or boolean, or an array of those; anything else matches nothing. */
export function claimValues(value: unknown): string[] {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return [String(value)];
  if (Array.isArray(value)) return value.filter((v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean').map(String);
  return [];
}
