/**
 * OXP server-side rules, pure: `$schema` acceptance and tool version
 * resolution exactly as the OXP call-tool and versioning pages say.
 */
import type { ServerErrorBody } from './oxp-wire.js';

/** Absent, `urn:oxp:1.x`, `otc://1.0`, or a long spec URI ending in `/http/1.0/openapi.json`. */
export function isAcceptedOxpSchema(value: unknown): boolean {
  if (value === undefined) return true;
  if (typeof value !== 'string') return false;
  return /^urn:oxp:1\.\d+$/.test(value) || value === 'otc://1.0' || /^https?:\/\/\S+\/http\/1\.0\/openapi\.json$/.test(value);
}

/**
 * Resolves `Id`, `Id@x.y.z` or `Id@x` against the versions offered for `Id`:
 * exact, `x.0.0`, or the latest by numeric semver. `undefined` = not available.
 */
export function resolveToolVersion(toolId: string, versionsOf: (key: string) => readonly string[] | undefined): { key: string; version: string } | undefined {
  const m = /^([^@]+)(?:@(\d+(?:\.\d+\.\d+)?))?$/.exec(toolId);
  if (!m) return undefined;
  const key = m[1]!;
  const versions = versionsOf(key);
  if (!versions || versions.length === 0) return undefined;
  const wanted = m[2];
  if (wanted === undefined) return { key, version: versions.reduce((a, b) => (compareVersions(b, a) > 0 ? b : a)) };
  const exact = wanted.includes('.') ? wanted : `${wanted}.0.0`;
  return versions.includes(exact) ? { key, version: exact } : undefined;
}

/** The 400 body for a tool id (or version) the server does not offer. */
export function notFound(toolId: string, developerMessage?: string): ServerErrorBody {
  return { message: `Tool '${toolId}' was not found`, ...(developerMessage ? { developer_message: developerMessage } : {}) };
}

/**
 * Orders two `x.y.z` versions numerically, part by part, at any size: the
 * OXP grammar (`^\d+\.\d+\.\d+$`) allows numbers beyond
 * Number.MAX_SAFE_INTEGER and leading zeros, which semver refuses (it
 * throws), so one odd version must not take a whole catalog down. Compared
 * as decimal strings: no leading zeros, then longer is larger, then by
 * characters. Parts missing or not digits compare as 0.
 */
export function compareVersions(a: string, b: string): number {
  const x = a.split('.');
  const y = b.split('.');
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const p = digits(x[i]);
    const q = digits(y[i]);
    if (p.length !== q.length) return p.length < q.length ? -1 : 1;
    if (p !== q) return p < q ? -1 : 1;
  }
  return 0;
}

function digits(part: string | undefined): string {
  return part !== undefined && /^\d+$/.test(part) ? part.replace(/^0+(?=\d)/, '') : '0';
}
