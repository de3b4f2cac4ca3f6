/**
 * Binds the global requirement values to upstreams. An upstream is a tool
 * server the operator may trust more or less than another, so with several
 * upstreams a global secret (`requirements.secrets`, `OXP_SECRET_<ID>`) or an
 * authorization token (`requirements.authorization`, the per-user
 * `X-OXP-Authorization-<provider>` headers) reaches only the upstreams whose
 * `grants` name it. With one upstream and no `grants`, it receives every
 * global value, as before grants existed. An upstream's own `secrets:` are
 * always its own.
 *
 * A global value configured in the file that no upstream may receive is a
 * configuration mistake (a value that silently goes nowhere, or that the
 * operator expected to go everywhere): it is refused with the key to add.
 */
import type { BoundRequirements, RequirementsConfig, ValueSource } from './upstream-settings.js';
import { secretEnvName } from '../core/requirements.js';
import { ConfigError } from './errors.js';

export interface Grants {
  secrets?: string[];
  authorization?: string[];
}

interface EntryLike {
  name: string;
  secrets?: Record<string, ValueSource>;
  grants?: Grants;
}

/** The requirement values of each entry (`entries` empty: the `upstream` section alone, which receives everything). */
export function boundRequirements(global: RequirementsConfig, entries: readonly EntryLike[]): BoundRequirements[] {
  if (entries.length === 0) return [global];
  const bound = entries.map((e) => bind(global, e, entries.length === 1 && !e.grants));
  refuseUnbound(global, entries, bound);
  return bound;
}

function bind(global: RequirementsConfig, entry: EntryLike, everything: boolean): BoundRequirements {
  if (everything) return { ...global, secrets: { ...global.secrets, ...entry.secrets } };
  const secrets = entry.grants?.secrets ?? [];
  const providers = (entry.grants?.authorization ?? []).map((p) => p.toLowerCase());
  return {
    ...global,
    secrets: { ...pick(global.secrets, (id) => secrets.includes(id)), ...entry.secrets },
    authorization: pick(global.authorization, (id) => providers.includes(id.toLowerCase())),
    granted: { secrets, authorization: providers },
  };
}

function pick<T>(record: Record<string, T>, keep: (key: string) => boolean): Record<string, T> {
  return Object.fromEntries(Object.entries(record).filter(([key]) => keep(key)));
}

function refuseUnbound(global: RequirementsConfig, entries: readonly EntryLike[], bound: readonly BoundRequirements[]): void {
  const example = entries[0]!.name;
  for (const id of Object.keys(global.secrets)) {
    if (bound.some((b) => b.secrets[id] === global.secrets[id])) continue;
    throw new ConfigError(
      `requirements.secrets.${id} reaches no upstream: with several upstreams, a global secret goes only to the upstreams that grant it. ` +
        `Add it to the upstreams[] entries that may receive it (e.g. name: ${example} → grants: { secrets: [${id}] }), or move it to that entry's own secrets.`,
    );
  }
  for (const id of Object.keys(global.authorization)) {
    if (bound.some((b) => b.authorization[id] !== undefined)) continue;
    throw new ConfigError(
      `requirements.authorization.${id} reaches no upstream: with several upstreams, a token goes only to the upstreams that grant its provider. ` +
        `Add it to the upstreams[] entries that may receive it (e.g. name: ${example} → grants: { authorization: [${id}] }).`,
    );
  }
}

/**
 * `OXP_SECRET_<ID>` variables in `env` that no upstream may read (a tool
 * declaring that secret gets a missing-requirement error): worth a warning,
 * not a refusal, since the environment is shared with other software.
 */
export function unboundSecretVariables(bound: readonly BoundRequirements[], env: NodeJS.ProcessEnv): string[] {
  if (bound.some((b) => !b.granted)) return [];
  const readable = new Set(bound.flatMap((b) => b.granted!.secrets.map(secretEnvName)));
  return Object.keys(env)
    .filter((name) => name.startsWith('OXP_SECRET_') && env[name] && !readable.has(name))
    .sort();
}
