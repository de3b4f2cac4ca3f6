/**
 * Many upstreams, one MCP catalog: per-upstream tool policies (allow/deny,
 * renames, description overrides, fixed arguments) and namespacing.
 *
 * Invariants:
 * - a tool is prefixed with its upstream's prefix when the upstream asks for
 *   it (`prefix` configured), or when its name collides with another
 *   upstream's (the prefix is then the upstream's name), so names stay
 *   readable until a collision forces otherwise;
 * - every merged name matches ^[A-Za-z0-9_-]{1,64}$ and is unique; over-long
 *   or still-colliding names are cut and hashed deterministically;
 * - the outcome depends only on the configuration order of upstreams and
 *   their catalogs, never on timing.
 */
import { buildIndex, compareStrings, MCP_NAME_RE, uniqueDerivedName, type Catalog, type CatalogEntry } from './catalog.js';
import { isPlainObject, type JsonObject } from './json.js';
import { anyGlob } from './glob.js';

export interface ToolPolicy {
  /** Glob patterns (`*` wildcard) over the tool's upstream MCP name or OXP id; empty = all. */
  allow?: string[];
  deny?: string[];
  /** Upstream MCP name → new name. */
  rename?: Record<string, string>;
  /** Upstream MCP name → description shown to clients. */
  descriptions?: Record<string, string>;
  /** Upstream MCP name → arguments the bridge sets on every call (clients can neither see nor override them). */
  fixedArguments?: Record<string, JsonObject>;
}

export interface UpstreamCatalog {
  upstream: string;
  /** Set: always prefix this upstream's tools with it. Unset: prefix with the upstream name on collisions only. */
  prefix?: string;
  catalog: Catalog;
  policy: ToolPolicy;
}

/**
 * The allow/deny part of a policy as a predicate over the names a tool is
 * known by (shared with the MCP → OXP direction): allowed when it matches an
 * allow pattern (or there are none) and no deny pattern.
 */
export function toolSelector(policy: Pick<ToolPolicy, 'allow' | 'deny'>): (names: readonly string[]) => boolean {
  const allowAll = (policy.allow ?? []).length === 0;
  const allow = anyGlob(policy.allow ?? []);
  const deny = anyGlob(policy.deny ?? []);
  return (names) => (allowAll || names.some(allow)) && !names.some(deny);
}

/** One upstream's entries after its policy, still under their upstream names. */
export function applyPolicy(part: UpstreamCatalog): CatalogEntry[] {
  const { policy } = part;
  const selected = toolSelector(policy);
  const out: CatalogEntry[] = [];
  for (const entry of part.catalog.entries) {
    if (!selected([entry.name, entry.tool.key])) continue;
    let tool = entry.tool;
    const description = policy.descriptions?.[entry.name];
    if (description !== undefined) tool = { ...tool, description };
    const fixed = policy.fixedArguments?.[entry.name];
    if (fixed) tool = { ...tool, inputSchema: withoutProperties(tool.inputSchema, Object.keys(fixed)) };
    out.push({
      name: policy.rename?.[entry.name] ?? entry.name,
      tool,
      callId: entry.callId,
      upstream: part.upstream,
      ...(fixed ? { fixedArguments: fixed } : {}),
    });
  }
  return out;
}

/**
 * The keys of a policy's `rename`, `descriptions` and `fixedArguments` that name no tool the upstream publishes (none
 * of its catalog's names, or a tool allow/deny leaves out): they do nothing, which the operator is told (a typo, a
 * tool renamed upstream). Keys as the configuration spells them (`tools.rename.<name>`), sorted.
 */
export function unmatchedToolKeys(policy: ToolPolicy, catalog: Catalog): string[] {
  const selected = toolSelector(policy);
  const published = new Set(catalog.entries.filter((e) => selected([e.name, e.tool.key])).map((e) => e.name));
  const unmatched: string[] = [];
  for (const field of ['rename', 'descriptions', 'fixedArguments'] as const)
    for (const name of Object.keys(policy[field] ?? {})) if (!published.has(name)) unmatched.push(`tools.${field}.${name}`);
  return unmatched.sort();
}

/** The input schema clients see for a tool with fixed arguments: those properties removed. */
function withoutProperties(schema: JsonObject, names: string[]): JsonObject {
  const copy: JsonObject = { ...schema };
  if (isPlainObject(schema.properties)) copy.properties = Object.fromEntries(Object.entries(schema.properties).filter(([k]) => !names.includes(k)));
  if (Array.isArray(schema.required)) copy.required = schema.required.filter((r) => typeof r !== 'string' || !names.includes(r));
  return copy;
}

export function mergeCatalogs(parts: readonly UpstreamCatalog[]): Catalog {
  const perUpstream = parts.map((part) => ({ part, entries: applyPolicy(part) }));
  const count = new Map<string, number>();
  for (const { entries } of perUpstream) for (const e of entries) count.set(e.name, (count.get(e.name) ?? 0) + 1);

  const taken = new Set<string>();
  const merged: CatalogEntry[] = [];
  for (const { part, entries } of perUpstream) {
    for (const entry of [...entries].sort((a, b) => compareStrings(a.name, b.name))) {
      const prefix = part.prefix ?? ((count.get(entry.name) ?? 0) > 1 ? part.upstream : undefined);
      const wanted = prefix ? `${prefix}_${entry.name}` : entry.name;
      // Over-long or still-colliding names fall back to a hashed form of `upstream/id`.
      const name =
        MCP_NAME_RE.test(wanted) && !taken.has(wanted) ? wanted : uniqueDerivedName(`${part.upstream}/${entry.tool.key}`, taken, wanted.slice(0, 64));
      taken.add(name);
      merged.push({ ...entry, name });
    }
  }
  return buildIndex(merged);
}
