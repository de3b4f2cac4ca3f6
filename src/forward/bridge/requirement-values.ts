/**
 * Where requirement values come from: secrets from configured sources (an
 * environment variable or a file such as a mounted Kubernetes secret, read
 * at call time so rotation needs no restart) or `OXP_SECRET_<ID>`; the user
 * id from the authenticated principal or configuration; authorization tokens
 * from the MCP request (HTTP headers) or configuration (stdio).
 */
import { readFileSync } from 'node:fs';
import { secretEnvName, type AvailableValues } from '../../core/requirements.js';

export type ValueSource = { env: string } | { file: string };

export interface RequirementsConfig {
  userId?: string;
  secrets: Record<string, ValueSource>;
  authorization: Record<string, ValueSource>;
  authorizationHeaderPrefix: string;
}

/**
 * One upstream's view of the requirement values (config/grants.ts): the
 * sources it may read, and, when it shares the bridge with other upstreams,
 * which `OXP_SECRET_<ID>` variables and which providers' per-user tokens it
 * may receive. Without `granted`, every one (the only upstream).
 */
export interface BoundRequirements extends RequirementsConfig {
  granted?: {
    /** Secret ids, exactly as tools declare them. */
    secrets: readonly string[];
    /** Provider ids, lower-cased. */
    authorization: readonly string[];
  };
}

export interface CallPrincipal {
  userId?: string;
  /** Tokens supplied with this MCP request, by lower-cased provider id. */
  authorization?: ReadonlyMap<string, string>;
}

/** What the bridge needs of request headers: `Headers`, or node's headers seen the same way (lower-case names). */
export interface HeaderReader {
  forEach(callback: (value: string, name: string) => void): void;
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

  /** `X-OXP-Authorization-<provider>: <token>` headers → tokens by provider id (only the providers granted to this upstream). */
  tokensFromHeaders(headers: HeaderReader): Map<string, string> | undefined {
    const prefix = this.config.authorizationHeaderPrefix.toLowerCase();
    const granted = this.config.granted?.authorization;
    let tokens: Map<string, string> | undefined;
    headers.forEach((value, name) => {
      if (!name.startsWith(prefix) || name.length <= prefix.length || !value) return;
      const provider = name.slice(prefix.length);
      if (!granted || granted.includes(provider)) (tokens ??= new Map()).set(provider, value.replace(/^Bearer\s+/i, ''));
    });
    return tokens;
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
