/**
 * Where requirement values come from: secrets from configured sources (an
 * environment variable or a file such as a mounted Kubernetes secret, read
 * at call time so rotation needs no restart) or `OXP_SECRET_<ID>`; the user
 * id from the authenticated principal or configuration; authorization tokens
 * from the MCP request (HTTP headers) or configuration (stdio).
 */
import { readFileSync } from 'node:fs';
import { secretEnvName, type AvailableValues } from '../core/requirements.js';

export type ValueSource = { env: string } | { file: string };

export interface RequirementsConfig {
  userId?: string;
  secrets: Record<string, ValueSource>;
  authorization: Record<string, ValueSource>;
  authorizationHeaderPrefix: string;
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
  constructor(private readonly config: RequirementsConfig, private readonly env: NodeJS.ProcessEnv = process.env) {}

  forCall(principal: CallPrincipal): AvailableValues {
    const authorization = new Map<string, string>();
    for (const [id, source] of Object.entries(this.config.authorization)) {
      const token = this.read(source);
      if (token) authorization.set(id.toLowerCase(), token);
    }
    for (const [id, token] of principal.authorization ?? []) authorization.set(id, token);
    return {
      secret: (id) => {
        const source = this.config.secrets[id];
        return source ? this.read(source) : nonEmpty(this.env[secretEnvName(id)]);
      },
      userId: principal.userId ?? this.config.userId,
      authorization,
    };
  }

  /** `X-OXP-Authorization-<provider>: <token>` headers → tokens by provider id. */
  tokensFromHeaders(headers: HeaderReader): Map<string, string> | undefined {
    const prefix = this.config.authorizationHeaderPrefix.toLowerCase();
    let tokens: Map<string, string> | undefined;
    headers.forEach((value, name) => {
      if (name.startsWith(prefix) && name.length > prefix.length && value) (tokens ??= new Map()).set(name.slice(prefix.length), value.replace(/^Bearer\s+/i, ''));
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
