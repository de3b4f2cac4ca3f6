/**
 * The bridge console's Tools view "as a principal": who it can be shown as
 * (the configured named tokens, the anonymous caller, or a principal
 * described on the spot, as an OAuth user would be), and the catalog as that
 * principal sees it, each tool with the access rule that decides for it.
 *
 * The decisions are the bridge's own (bridge.access, the policy that lists
 * and calls use), never a copy of its rules. Operator-only, as the rest of
 * the console API: it tells which tools exist and who may call them.
 */
import type { Bridge } from '../forward/bridge/bridge.js';
import type { AccessDecision } from '../core/access-policy.js';
import type { CatalogEntry } from '../core/catalog.js';
import type { Principal, PrincipalKind } from '../core/principal.js';
import { shownPrincipal } from './redact.js';
import { BadConsoleRequest, type ToolsAs } from './router.js';

/** The `as` value that describes a principal in the query itself (name, groups, scopes, kind). */
export const CUSTOM = 'custom';
const KINDS: readonly PrincipalKind[] = ['oauth', 'token', 'api-key', 'jwt', 'anonymous'];
const MAX_GROUPS = 64;
const MAX_GROUP_CHARS = 128;

/** Who the Tools view can show the catalog as: `id` is the `as` value naming each. */
export function principalChoices(bridge: Bridge, named: readonly Principal[]) {
  const anonymous = bridge.access.principalOf(undefined);
  return {
    principals: [anonymous, ...named].map((p) => ({ id: idOf(p), ...shownPrincipal(p) })),
    custom: { as: CUSTOM, kinds: KINDS, defaultKind: 'oauth' },
    policy: { active: bridge.access.active, default: bridge.access.config.default ?? 'allow', rules: bridge.access.config.rules?.length ?? 0 },
  };
}

const idOf = (p: Principal) => (p.kind === 'anonymous' ? 'anonymous' : `${p.kind}:${p.name}`);

/** The principal a query names; a BadConsoleRequest (400) when it names none. */
export function principalFor(as: ToolsAs, bridge: Bridge, named: readonly Principal[]): Principal {
  if (as.as === CUSTOM) return customPrincipal(as);
  const found = [bridge.access.principalOf(undefined), ...named].find((p) => idOf(p) === as.as);
  if (!found) throw new BadConsoleRequest(`no principal ${as.as}: use an id from /console/api/principals, or as=${CUSTOM} with name and groups`);
  return found;
}

/** A principal described in the query, e.g. an OAuth user with the groups its token would carry (claims it has none). */
function customPrincipal(as: ToolsAs): Principal {
  const name = as.name.trim();
  if (!name) throw new BadConsoleRequest(`as=${CUSTOM} needs a name`);
  const kind = (as.kind || 'oauth') as PrincipalKind;
  if (!KINDS.includes(kind)) throw new BadConsoleRequest(`kind must be one of ${KINDS.join(', ')}`);
  const groups = list(as.groups, 'groups');
  const scopes = list(as.scopes, 'scopes');
  return { subject: name, name, kind, groups, scopes };
}

/** Comma- or space-separated values, each bounded, at most MAX_GROUPS. */
function list(text: string, what: string): string[] {
  const values = [...new Set(text.split(/[\s,]+/).filter(Boolean))];
  if (values.length > MAX_GROUPS) throw new BadConsoleRequest(`at most ${MAX_GROUPS} ${what}`);
  if (values.some((v) => v.length > MAX_GROUP_CHARS)) throw new BadConsoleRequest(`${what} have at most ${MAX_GROUP_CHARS} characters each`);
  return values;
}

/** Which rule decided: `{index, id?}` (index from 0 in access.rules), or null when access.default did. */
function ruleOf(decision: AccessDecision): { index: number; id?: string } | null {
  return decision.rule ?? null;
}

/**
 * The entries as `principal` sees them: those it may call (and with `hidden`, the others too), each with its
 * decision; `visible` and `hidden` count every entry given.
 */
export function entriesAs(bridge: Bridge, entries: readonly CatalogEntry[], principal: Principal, hidden: boolean) {
  const decisions = bridge.access.decideEach(entries, principal);
  const shown: { entry: CatalogEntry; access: { allowed: boolean; rule: { index: number; id?: string } | null } }[] = [];
  let visible = 0;
  entries.forEach((entry, i) => {
    const decision = decisions[i]!;
    if (decision.allow) visible++;
    if (decision.allow || hidden) shown.push({ entry, access: { allowed: decision.allow, rule: ruleOf(decision) } });
  });
  return { shown, visible, hidden: entries.length - visible };
}
