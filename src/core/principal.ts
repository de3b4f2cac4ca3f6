/**
 * Who is calling, as every part of the bridge sees it once the face has
 * authenticated the request: the access policy matches it, limits count it,
 * logs, metrics, the console and the audit trail name it, and OXP `user_id`
 * carries its subject.
 *
 * A principal holds no credential: the caller's own access token (needed
 * only for token exchange) is kept apart, in `src/forward/bridge/caller-token.ts`,
 * so that logging or serialising a principal can never leak it.
 */
export type PrincipalKind =
  /** A static bearer token of the MCP endpoint (`auth.tokens`). */
  | 'token'
  /** A verified OAuth access token (JWT). */
  | 'oauth'
  /** An `OXP-API-Key` of the oxp-server command. */
  | 'api-key'
  /** An HS256 JWT of the oxp-server command. */
  | 'jwt'
  /** Nobody authenticated: stdio, or an endpoint without authentication (`auth.anonymous` names it). */
  | 'anonymous';

export interface Principal {
  /** Stable id: OXP `user_id`, the key of per-principal limits and cancellations. */
  readonly subject: string;
  /** What logs, metrics, the console and the audit trail show: the token's name, the user claim, or `token:<hash>`. */
  readonly name: string;
  readonly kind: PrincipalKind;
  /** Groups (static tokens: configured; OAuth: the configured groups claims). */
  readonly groups: readonly string[];
  readonly scopes: readonly string[];
  /** OAuth: the verified token's claims, for policy rules that match claims. */
  readonly claims?: Readonly<Record<string, unknown>>;
  readonly clientId?: string;
  /** A static token or API key with a configured name: its name is one of a set the configuration bounds. */
  readonly named?: boolean;
}

/** How `auth.anonymous` describes an unauthenticated caller. */
export interface AnonymousSettings {
  name: string;
  groups: readonly string[];
}

export const DEFAULT_ANONYMOUS: AnonymousSettings = { name: 'anonymous', groups: [] };

export function anonymousPrincipal(settings: AnonymousSettings = DEFAULT_ANONYMOUS): Principal {
  return { subject: settings.name, name: settings.name, kind: 'anonymous', groups: settings.groups, scopes: [] };
}

/**
 * The principal as a metric label: a configured name (bounded by the configuration), else its kind (`oauth`,
 * `anonymous`, `token` for a plain token, `api-key`, `jwt`). OAuth user names and JWT subjects come from outside and
 * are unbounded, so they never become labels. Nobody authenticated is `anonymous`. No allocation: both are existing strings.
 */
export function principalLabel(principal: Principal | undefined): string {
  if (!principal) return 'anonymous';
  return principal.named ? principal.name : principal.kind;
}
