/**
 * Which OXP `context` a call carries, decided from the tool's declared
 * `requirements` alone (pure; the values are looked up by the caller), and,
 * on the server side, whether a received `context` satisfies them.
 *
 * Invariant: a secret, the user id or an authorization token goes only to a
 * tool that declared it. Nothing undeclared is ever sent or passed on.
 */
import { isPlainObject, type JsonObject } from './json.js';
import type { OxpRequirements, OxpTool, ServerErrorBody } from './oxp-wire.js';

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

/** The entries of a received `context` list (`secrets`, `authorization`) that carry an id and a string under `field`. */
function provided(context: JsonObject | undefined, list: 'secrets' | 'authorization', field: 'value' | 'token'): Map<string, string> {
  const items = context?.[list];
  const out = new Map<string, string>();
  if (!Array.isArray(items)) return out;
  for (const item of items) if (isPlainObject(item) && typeof item.id === 'string' && typeof item[field] === 'string') out.set(item.id, item[field]);
  return out;
}

/** Server side: the 400 body for a call whose `context` lacks something the tool declared; undefined when nothing is missing. */
export function missingContext(requirements: OxpRequirements | undefined, context: JsonObject | undefined): ServerErrorBody | undefined {
  if (!requirements) return undefined;
  const secrets = provided(context, 'secrets', 'value');
  const tokens = provided(context, 'authorization', 'token');
  const missingSecrets = (requirements.secrets ?? []).map((s) => s.id).filter((id) => !secrets.has(id));
  const missingTokens = (requirements.authorization ?? []).map((a) => a.id).filter((id) => !tokens.has(id));
  const missingUserId = requirements.user_id === true && !(typeof context?.user_id === 'string' && context.user_id !== '');
  if (!missingSecrets.length && !missingTokens.length && !missingUserId) return undefined;
  const parts: string[] = [];
  if (missingTokens.length) parts.push(`an authorization token for ${missingTokens.join(', ')}`);
  if (missingSecrets.length) parts.push(`the secret${missingSecrets.length > 1 ? 's' : ''} ${missingSecrets.join(', ')}`);
  if (missingUserId) parts.push('a user id');
  const body: ServerErrorBody = { message: `The tool needs ${parts.join(' and ')}, which the call did not provide.` };
  if (missingUserId) body.missing_requirements = { user_id: true };
  return body;
}

/** Server side: only the parts of a received `context` the tool declared (undefined when none). */
export function declaredContext(requirements: OxpRequirements | undefined, context: JsonObject | undefined): JsonObject | undefined {
  if (!requirements || !context) return undefined;
  const out: JsonObject = {};
  const secrets = provided(context, 'secrets', 'value');
  const tokens = provided(context, 'authorization', 'token');
  const wantedSecrets = (requirements.secrets ?? []).flatMap(({ id }) => (secrets.has(id) ? [{ id, value: secrets.get(id)! }] : []));
  const wantedTokens = (requirements.authorization ?? []).flatMap(({ id }) => (tokens.has(id) ? [{ id, token: tokens.get(id)! }] : []));
  if (wantedSecrets.length) out.secrets = wantedSecrets;
  if (wantedTokens.length) out.authorization = wantedTokens;
  if (requirements.user_id === true && typeof context.user_id === 'string') out.user_id = context.user_id;
  return Object.keys(out).length ? out : undefined;
}
