/**
 * Which OXP `context` a call carries, decided from the tool's declared
 * `requirements` alone (pure; the values are looked up by the caller).
 *
 * Invariant: a secret, the user id or an authorization token goes only to a
 * tool that declared it. Nothing undeclared is ever sent.
 */
import type { JsonObject } from './json.js';
import type { OxpTool } from './oxp-wire.js';

/** The bridge's convention for where a secret comes from by default: `OXP_SECRET_<ID>`. */
export function secretEnvName(secretId: string): string {
  return `OXP_SECRET_${secretId.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

export interface AvailableValues {
  secret(id: string): string | undefined;
  userId: string | undefined;
  /** Tokens by provider id (matched case-insensitively: HTTP header names have no case). */
  authorization: ReadonlyMap<string, string>;
}

export type ContextDecision = { ok: true; context?: JsonObject } | { ok: false; missingSecrets: string[]; missingUserId: boolean };

export function buildCallContext(tool: OxpTool, values: AvailableValues): ContextDecision {
  const req = tool.requirements;
  if (!req) return { ok: true };
  const context: JsonObject = {};
  const missingSecrets: string[] = [];
  if (req.secrets) {
    const secrets: JsonObject[] = [];
    for (const { id } of req.secrets) {
      const value = values.secret(id);
      if (value === undefined) missingSecrets.push(id);
      else secrets.push({ id, value });
    }
    if (secrets.length) context.secrets = secrets;
  }
  const missingUserId = req.user_id === true && !values.userId;
  if (req.user_id === true && values.userId) context.user_id = values.userId;
  if (req.authorization) {
    // Providers without a token are left out: the server answers with an authorization challenge.
    const tokens = req.authorization.flatMap(({ id }) => {
      const token = values.authorization.get(id.toLowerCase());
      return token ? [{ id, token }] : [];
    });
    if (tokens.length) context.authorization = tokens;
  }
  if (missingSecrets.length || missingUserId) return { ok: false, missingSecrets, missingUserId };
  return Object.keys(context).length ? { ok: true, context } : { ok: true };
}
