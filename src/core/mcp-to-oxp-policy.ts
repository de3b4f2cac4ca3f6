/**
 * The keys of an oxp-server upstream's tool policy (`tools.rename`, `tools.descriptions`, `tools.<name>`), pure:
 * which tool each names, and which name none.
 *
 * - `tools.rename` and `tools.<name>` (version, requirements) name a tool by its MCP name, as the server lists it;
 * - `tools.descriptions` names a published tool by any of its names (docs/oxp-server.md, "Tool policy"): its MCP name,
 *   its rename, its OXP `name`, or its id without or with the version (`Files.read`, `Files.read@1.0.0`); the first
 *   of these that has a description wins;
 * - a key that names no tool the server lists does nothing: the operator is told (a typo, a tool renamed upstream).
 */
import type { McpTool } from './mcp-wire.js';

/** `record[key]` when the record itself holds it (a tool named `constructor` finds no inherited function). */
export function ownValue<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** A published tool's names, in the order a `tools.descriptions` key is looked for. */
export interface PublishedNames {
  mcpName: string;
  /** The rename, or the MCP name. */
  wanted: string;
  /** The OXP `name`. */
  name: string;
  /** `Toolkit.Tool` */
  key: string;
  version: string;
}

function descriptionKeys(n: PublishedNames): string[] {
  return [n.mcpName, n.wanted, n.name, n.key, `${n.key}@${n.version}`];
}

/** The description `tools.descriptions` gives a published tool, under the first of its names that has one. */
export function configuredDescription(descriptions: Readonly<Record<string, string>> | undefined, names: PublishedNames): string | undefined {
  if (!descriptions) return undefined;
  for (const key of descriptionKeys(names)) {
    const value = ownValue(descriptions, key);
    if (value !== undefined) return value;
  }
  return undefined;
}

/**
 * The policy keys that name no tool: `tools.rename.X` and `tools.X` for an X the server does not list, and
 * `tools.descriptions.X` for an X that is none of the names of a tool it publishes. As configuration paths, sorted.
 */
export function unmatchedPolicyKeys(
  policy: { rename?: Readonly<Record<string, string>>; descriptions?: Readonly<Record<string, string>> } | undefined,
  perToolNames: readonly string[],
  listed: readonly McpTool[],
  published: readonly PublishedNames[],
): string[] {
  const mcpNames = new Set(listed.map((t) => t.name));
  const unmatched: string[] = [];
  for (const name of Object.keys(policy?.rename ?? {})) if (!mcpNames.has(name)) unmatched.push(`tools.rename.${name}`);
  for (const name of perToolNames) if (!mcpNames.has(name)) unmatched.push(`tools.${name}`);
  const describable = new Set(published.flatMap(descriptionKeys));
  for (const key of Object.keys(policy?.descriptions ?? {})) if (!describable.has(key)) unmatched.push(`tools.descriptions.${key}`);
  return unmatched.sort();
}
