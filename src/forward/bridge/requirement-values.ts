/**
 * Where requirement values come from: secrets from configured sources (an
 * environment variable or a file such as a mounted Kubernetes secret, read
 * at call time so rotation needs no restart) or `OXP_SECRET_<ID>`; the user
 * id from the authenticated principal or configuration; authorization tokens
 * sent with the MCP request (parsed from its HTTP headers by the face) or configuration.
 */
import { readFileSync } from 'node:fs';
import { secretEnvName, type AvailableValues } from '../../core/requirements.js';
import type { BoundRequirements, ValueSource } from '../../config/upstream-settings.js';

export type { BoundRequirements, RequirementsConfig, ValueSource } from '../../config/upstream-settings.js';

export interface CallPrincipal {
  userId?: string;
  /** Tokens supplied with this MCP request, by lower-cased provider id. */
  authorization?: ReadonlyMap<string, string>;
}

export class RequirementValues {
  constructor(
    private readonly config: BoundRequirements,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  forCall(principal: CallPrincipal): AvailableValues {
    const authorization = new Map<string, string>();
    for (const [id, source] of Object.entries(this.config.authorization)) {
      const token = this.read(source);
      if (token) authorization.set(id.toLowerCase(), token);
    }
    for (const [id, token] of principal.authorization ?? []) authorization.set(id, token);
    const granted = this.config.granted;
    return {
      secret: (id) => {
        // Declared ids come from an untrusted catalog: own keys only (never `__proto__` and friends).
        const source = Object.hasOwn(this.config.secrets, id) ? this.config.secrets[id] : undefined;
        if (source) return this.read(source);
        return !granted || granted.secrets.includes(id) ? nonEmpty(this.env[secretEnvName(id)]) : undefined;
      },
      userId: principal.userId ?? this.config.userId,
      authorization,
    };
  }

  /** The request's per-user provider tokens this upstream may receive (every one without grants; undefined when none). */
  grantedTokens(tokens: ReadonlyMap<string, string>): ReadonlyMap<string, string> | undefined {
    const granted = this.config.granted?.authorization;
    if (!granted) return tokens;
    let kept: Map<string, string> | undefined;
    for (const [provider, token] of tokens) if (granted.includes(provider)) (kept ??= new Map()).set(provider, token);
    return kept;
  }

  private read(source: ValueSource): string | undefined {
    if ('env' in source) return nonEmpty(this.env[source.env]);
    try {
      return nonEmpty(readFileSync(source.file, 'utf8').trim());
    } catch {
      return undefined;
    }
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
