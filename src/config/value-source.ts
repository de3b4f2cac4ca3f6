/**
 * Reading values the configuration names by source (`{env: NAME}` or
 * `{file: PATH}`), once per load, and the named static secrets built on
 * them: static bearer tokens of the MCP endpoint and API keys of the
 * oxp-server command, each of which is a principal.
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from './errors.js';
import type { ValueSourceConfig } from './types.js';
import type { Principal } from '../core/principal.js';
import { secretDigest } from '../platform/shared/secret-match.js';

export function readValueSource(source: ValueSourceConfig | undefined, what: string, env: NodeJS.ProcessEnv): string | undefined {
  if (!source) return undefined;
  if ('env' in source) {
    const value = env[source.env];
    if (!value) throw new ConfigError(`${what}: environment variable ${source.env} is not set`);
    return value;
  }
  try {
    return readFileSync(source.file, 'utf8').trim();
  } catch (error) {
    throw new ConfigError(`${what}: cannot read ${source.file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}

/** A configured static secret: plain, or a named principal with groups. */
export type NamedSecretConfig = string | { name: string; value: ValueSourceConfig; groups?: string[] };

/** A static secret ready to compare (its digest) and the principal it authenticates. */
export interface StaticCredential {
  digest: Buffer;
  principal: Principal;
}

/**
 * The secrets as credentials. A plain secret is a principal named by a prefix of its digest (`token:1a2b…`), as
 * before names existed; a named one carries its name and groups. Names are unique, and so are the secrets.
 */
export function staticCredentials(entries: readonly NamedSecretConfig[], kind: 'token' | 'api-key', what: string, env: NodeJS.ProcessEnv): StaticCredential[] {
  const seen = new Set<string>();
  const credentials = entries.map((entry, i): StaticCredential => {
    if (typeof entry === 'string') return plainCredential(entry, kind);
    const value = readValueSource(entry.value, `${what}[${i}] (${entry.name})`, env)!;
    if (value.length < 16) throw new ConfigError(`${what}[${i}] (${entry.name}): the value must have at least 16 characters`);
    if (seen.has(entry.name)) throw new ConfigError(`${what}[${i}]: the name ${entry.name} is used twice`);
    seen.add(entry.name);
    return { digest: secretDigest(value), principal: { subject: entry.name, name: entry.name, kind, groups: entry.groups ?? [], scopes: [], named: true } };
  });
  // The same plain secret twice is harmless (e.g. in MCP_AUTH_TOKENS and the file); a secret that would be two principals is not.
  const byDigest = new Map<string, StaticCredential>();
  for (const c of credentials) {
    const key = c.digest.toString('hex');
    const other = byDigest.get(key);
    if (other && other.principal.name !== c.principal.name)
      throw new ConfigError(`${what}: the same secret is configured for two principals (${other.principal.name}, ${c.principal.name})`);
    byDigest.set(key, c);
  }
  return [...byDigest.values()];
}

export function plainCredential(secret: string, kind: 'token' | 'api-key'): StaticCredential {
  const digest = secretDigest(secret);
  const name = `${kind === 'token' ? 'token' : 'key'}:${digest.toString('hex').slice(0, 12)}`;
  return { digest, principal: { subject: name, name, kind, groups: [], scopes: [] } };
}
