/**
 * What a configuration reload changed, for its audit record: key paths, never values (a changed secret shows as
 * `requirements.secrets`, not as what it became). Pure.
 */
import { isPlainObject } from '../../core/json.js';

/** Deep equality of JSON values, whatever the order of their keys (a file re-saved by an editor may reorder them). */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => same(x, b[i]));
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && same(a[k], b[k]));
}

/** `upstreams[]`, by name: added, removed, changed. */
function upstreamChanges(before: unknown, after: unknown): string[] {
  const byName = (list: unknown) =>
    new Map((Array.isArray(list) ? list : []).filter(isPlainObject).map((u) => [String(u.name), u] as [string, Record<string, unknown>]));
  const [was, now] = [byName(before), byName(after)];
  const changes: string[] = [];
  for (const name of now.keys()) if (!was.has(name)) changes.push(`upstreams: added ${name}`);
  for (const name of was.keys()) if (!now.has(name)) changes.push(`upstreams: removed ${name}`);
  for (const [name, u] of now) if (was.has(name) && !same(was.get(name), u)) changes.push(`upstreams: changed ${name}`);
  return changes;
}

/**
 * The keys whose values differ between two configurations, two levels deep (`catalog.pageSize`, `logLevel`),
 * and `upstreams[]` entry by entry. Sorted by key.
 */
export function configChanges(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const changes: string[] = [];
  for (const key of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
    const [a, b] = [before[key], after[key]];
    if (same(a, b)) continue;
    if (key === 'upstreams') changes.push(...upstreamChanges(a, b));
    else if (isPlainObject(a) && isPlainObject(b)) {
      for (const sub of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) if (!same(a[sub], b[sub])) changes.push(`${key}.${sub}`);
    } else changes.push(key);
  }
  return changes;
}
