/**
 * Builds the bridge's view of one OXP tool server: the latest version of each
 * tool, under an MCP-safe name, in a deterministic order.
 *
 * Invariants:
 * - every MCP name matches ^[A-Za-z0-9_-]{1,64}$ and is unique;
 * - names depend only on the catalog's content, never on listing order or on
 *   time, so they are stable across restarts;
 * - the MCP name → tool map is the only way back from a name to a tool
 *   (names are never reversed by string surgery).
 */
import type { JsonObject } from './json.js';
import type { OxpTool } from './oxp-wire.js';
import { callToolId } from './oxp-wire.js';
import { compareVersions as compareNumericVersions } from './oxp-versioning.js';

export const MCP_NAME_RE = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_NAME = 64;
const HASH_LEN = 8;

export interface CatalogEntry {
  /** The MCP tool name. */
  readonly name: string;
  readonly tool: OxpTool;
  /** What the bridge sends as `tool_id`: pinned to the listed version. */
  readonly callId: string;
  /** Which upstream serves it (set once catalogs are merged). */
  readonly upstream?: string;
  /** Arguments the bridge adds to every call (hidden from the tool's MCP input schema). */
  readonly fixedArguments?: JsonObject;
}

export interface Catalog {
  /** Sorted by MCP name (code-unit order, locale-independent). */
  readonly entries: readonly CatalogEntry[];
  readonly byName: ReadonlyMap<string, CatalogEntry>;
  /** OXP tool key (id without version; `upstream/key` once merged) → MCP name. */
  readonly nameByKey: ReadonlyMap<string, string>;
}

/** Keeps the highest version of each tool key (numerically, at any size; unversioned loses to versioned). */
export function latestVersions(tools: readonly OxpTool[]): OxpTool[] {
  const best = new Map<string, OxpTool>();
  for (const tool of tools) {
    const current = best.get(tool.key);
    if (!current || compareVersions(tool.version, current.version) > 0) best.set(tool.key, tool);
  }
  return [...best.values()];
}

function compareVersions(a: string | undefined, b: string | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return -1;
  if (b === undefined) return 1;
  return compareNumericVersions(a, b);
}

export function buildCatalog(tools: readonly OxpTool[]): Catalog {
  // Name claims are settled in key order so the outcome is independent of
  // the order the server listed tools in.
  const latest = latestVersions(tools).sort((x, y) => compareStrings(x.key, y.key));
  const taken = new Set<string>();
  const byName = new Map<string, CatalogEntry>();

  const claim = (tool: OxpTool, name: string) => {
    taken.add(name);
    byName.set(name, { name, tool, callId: callToolId(tool) });
  };

  // First pass: tools whose OXP `name` is a valid, unclaimed MCP name keep it.
  const needDerived: OxpTool[] = [];
  for (const tool of latest) {
    if (tool.name !== undefined && MCP_NAME_RE.test(tool.name) && !taken.has(tool.name)) claim(tool, tool.name);
    else needDerived.push(tool);
  }
  // Second pass: everything else gets a name derived from its id.
  for (const tool of needDerived) claim(tool, uniqueDerivedName(tool.key, taken));

  return buildIndex([...byName.values()]);
}

/** Sorted entries plus both lookup maps. */
export function buildIndex(list: readonly CatalogEntry[]): Catalog {
  const entries = [...list].sort((x, y) => compareStrings(x.name, y.name));
  const byName = new Map<string, CatalogEntry>();
  const nameByKey = new Map<string, string>();
  for (const e of entries) {
    byName.set(e.name, e);
    nameByKey.set(e.upstream ? `${e.upstream}/${e.tool.key}` : e.tool.key, e.name);
  }
  return { entries, byName, nameByKey };
}

/**
 * `Toolkit.Tool` → `Toolkit_Tool`; characters outside [A-Za-z0-9_-] become `_`
 * and then a hash of the id is appended so that different ids never share a
 * name; over-long names are cut and hashed.
 */
export function derivedName(key: string): string {
  return safeName(key.replace(/\./g, '_'), key, /[^A-Za-z0-9_-]/g, MAX_NAME);
}

/**
 * `text` with every `invalid` character replaced by `_`. When that changed
 * anything, or the result is empty or longer than `max`, it is cut and a hash
 * of `original` is appended, so that different originals never meet.
 */
export function safeName(text: string, original: string, invalid: RegExp, max: number): string {
  const sanitized = text.replace(invalid, '_');
  if (sanitized === text && sanitized.length > 0 && sanitized.length <= max) return sanitized;
  return `${sanitized.slice(0, max - HASH_LEN - 1)}_${hash8(original)}`;
}

export function uniqueDerivedName(key: string, taken: ReadonlySet<string>, base = derivedName(key)): string {
  return uniqueName(base, key, taken, MAX_NAME);
}

/**
 * `base` when free; else `base` with a hash of `seed` appended; else, for
 * two seeds whose 32-bit hashes collide as well, numbered deterministically.
 */
export function uniqueName(base: string, seed: string, taken: ReadonlySet<string>, max: number): string {
  if (!taken.has(base)) return base;
  const hashed = base.endsWith(hash8(seed)) ? base : `${base.slice(0, max - HASH_LEN - 1)}_${hash8(seed)}`;
  if (!taken.has(hashed)) return hashed;
  for (let i = 2; ; i++) {
    const suffix = `_${i}`;
    const candidate = `${hashed.slice(0, max - suffix.length)}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** FNV-1a over UTF-16 code units, as 8 lower-case hex digits. Pure and stable. */
export function hash8(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
