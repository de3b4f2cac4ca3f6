/**
 * OXP server-side rules, pure: `$schema` acceptance and tool version
 * resolution exactly as the OXP call-tool and versioning pages say.
 */
// The one function needed, not the whole package (start-up time).
import semverGt from 'semver/functions/gt.js';
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
  if (wanted === undefined) return { key, version: versions.reduce((a, b) => (semverGt(b, a) ? b : a)) };
  const exact = wanted.includes('.') ? wanted : `${wanted}.0.0`;
  return versions.includes(exact) ? { key, version: exact } : undefined;
}

/** The 400 body for a tool id (or version) the server does not offer. */
export function notFound(toolId: string, developerMessage?: string): ServerErrorBody {
  return { message: `Tool '${toolId}' was not found`, ...(developerMessage ? { developer_message: developerMessage } : {}) };
}
