/**
 * OAuth 2.0 Token Exchange (RFC 8693), the pure half: the request the bridge
 * sends to a token endpoint, what it accepts back, the cache key, and the
 * words a person reads when it fails. The I/O (HTTP, cache, single-flight)
 * is src/forward/client/token-exchanger.ts.
 *
 * Nothing here puts a token, a client secret or the authorization server's
 * text into a message: a failure names the upstream and a reason chosen from
 * a fixed list, and the OAuth `error` code only when it is a plain code.
 */
import { isPlainObject, tryParseJson } from './json.js';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

export interface TokenExchangeSettings {
  tokenEndpoint: string;
  clientId: string;
  clientSecret: string;
  audience?: string;
  resource?: string;
  scope?: string;
  timeoutMs: number;
  /** How the exchanged token is used: as the upstream's bearer token, or as a provider token in OXP `context.authorization`. */
  use: { as: 'bearer' } | { as: 'authorization'; provider: string };
  /** A cached token is exchanged again this long before it (or its subject token) expires; TokenExchanger's option overrides it. */
  refreshSkewSeconds?: number;
}

export type ExchangeFailureKind = 'refused' | 'unavailable';

export type ExchangeResult = { ok: true; token: string; expiresAt: number } | { ok: false; kind: ExchangeFailureKind; message: string; status?: number };

/** What the token endpoint's answer amounts to, before it becomes an ExchangeResult. */
export type ParsedExchange =
  | { ok: true; token: string; expiresInSeconds: number }
  | { ok: false; kind: ExchangeFailureKind; reason: string; error?: string; status?: number; operatorProblem?: true };

/** Used when the answer states no `expires_in` (it is only RECOMMENDED): short, so an unknown lifetime is not trusted for long. */
export const UNSTATED_LIFETIME_SECONDS = 60;
/** The longest lifetime believed, whatever the answer says: a day. */
const MAX_LIFETIME_SECONDS = 86_400;
const MAX_TOKEN_CHARS = 16_384;

/**
 * OAuth error codes that mean "this caller's grant cannot be exchanged": the
 * subject token is expired, revoked, for someone else, or lacks what the
 * target needs. Signing in again is the remedy.
 */
const REFUSED_ERRORS = new Set(['invalid_grant', 'invalid_target', 'invalid_request', 'invalid_scope', 'access_denied']);

/** RFC 8693 §2.1 form body. `requested_token_type` is always an access token: the result is sent as one. */
export function exchangeRequestBody(settings: TokenExchangeSettings, subjectToken: string): string {
  const form = new URLSearchParams({
    grant_type: TOKEN_EXCHANGE_GRANT,
    subject_token: subjectToken,
    subject_token_type: ACCESS_TOKEN_TYPE,
    requested_token_type: ACCESS_TOKEN_TYPE,
  });
  if (settings.audience) form.set('audience', settings.audience);
  if (settings.resource) form.set('resource', settings.resource);
  if (settings.scope) form.set('scope', settings.scope);
  return form.toString();
}

/**
 * `client_secret_basic`: RFC 6749 §2.3.1 form-urlencodes the id and the
 * secret before joining them with `:` and base64-encoding, so a `:` or a
 * non-ASCII character in either survives (many clients forget this step).
 */
export function basicAuthorization(clientId: string, clientSecret: string): string {
  const encode = (s: string) => new URLSearchParams({ s }).toString().slice(2);
  return `Basic ${btoa(`${encode(clientId)}:${encode(clientSecret)}`)}`;
}

/** The cache key: who, for which upstream, for which target. Never the token itself. */
export function exchangeCacheKey(subject: string, upstream: string, settings: Pick<TokenExchangeSettings, 'audience' | 'resource' | 'scope'>): string {
  return JSON.stringify([subject, upstream, settings.audience ?? '', settings.resource ?? '', settings.scope ?? '']);
}

/** A JWT's `exp` in milliseconds, read without verifying (the caller verified it already), or undefined. */
export function jwtExpiryMs(token: string): number | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[1]!.length > MAX_TOKEN_CHARS) return undefined;
  try {
    const base64 = parts[1]!.replace(/-/g, '+').replace(/_/g, '/');
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const payload = tryParseJson(new TextDecoder().decode(bytes));
    const exp = isPlainObject(payload) ? payload.exp : undefined;
    return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads the token endpoint's answer. Accepted: 200, a JSON object with a
 * non-empty `access_token` that is not the subject token, `token_type`
 * Bearer (any case; `N_A` means the issued token is not an access token and
 * DPoP would need a proof the bridge does not make), `issued_token_type`
 * the access-token type when stated.
 */
export function parseExchangeResponse(status: number, body: string, subjectToken: string): ParsedExchange {
  const json = tryParseJson(body);
  if (status !== 200) return failedAnswer(status, isPlainObject(json) ? json.error : undefined);
  const bad = (reason: string): ParsedExchange => ({ ok: false, kind: 'unavailable', reason, status });
  if (!isPlainObject(json)) return bad('answered with something other than a JSON object');
  const token = json.access_token;
  if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN_CHARS) return bad('answered without a usable access_token');
  // Never pass the caller's own token through (MCP authorization: no token passthrough).
  if (token === subjectToken) return bad("answered with the caller's own token");
  if (typeof json.token_type !== 'string' || json.token_type.toLowerCase() !== 'bearer') return bad('answered with a token that is not a Bearer token');
  if (json.issued_token_type !== undefined && json.issued_token_type !== ACCESS_TOKEN_TYPE) return bad('answered with a token that is not an access token');
  const expiresIn = json.expires_in;
  if (expiresIn !== undefined && (typeof expiresIn !== 'number' || !Number.isFinite(expiresIn) || expiresIn <= 0))
    return bad('answered with an invalid expires_in');
  return { ok: true, token, expiresInSeconds: Math.min(expiresIn ?? UNSTATED_LIFETIME_SECONDS, MAX_LIFETIME_SECONDS) };
}

function failedAnswer(status: number, error: unknown): ParsedExchange {
  const code = typeof error === 'string' && /^[a-z0-9_.-]{1,64}$/i.test(error) ? error : undefined;
  const withCode = code ? { error: code } : {};
  if (status === 400 && code && REFUSED_ERRORS.has(code)) return { ok: false, kind: 'refused', reason: `refused the exchange (${code})`, status, ...withCode };
  if (status === 401 || code === 'invalid_client' || code === 'unauthorized_client') {
    // The bridge's own client credentials or registration: the operator's to fix, not the person's.
    return { ok: false, kind: 'unavailable', reason: "refused the bridge's own client credentials", status, operatorProblem: true, ...withCode };
  }
  if (status >= 300 && status < 400)
    return { ok: false, kind: 'unavailable', reason: `answered HTTP ${status} (redirects are not followed)`, status, ...withCode };
  return { ok: false, kind: 'unavailable', reason: `answered HTTP ${status}${code ? ` (${code})` : ''}`, status, ...withCode };
}

/** What the person reads when the exchange was refused: their sign-in, not the service, is the problem. */
export function refusedMessage(upstream: string): string {
  return `Your sign-in could not be used for ${upstream}: it may have expired or not cover this service. Sign in again, then retry.`;
}

/** What the person reads when the token service could not be used: not their fault; later, or the operator, can fix it. */
export function unavailableMessage(upstream: string, reason: string, operatorProblem = false): string {
  const remedy = operatorProblem ? "The bridge's operator needs to fix its configuration." : 'Try again later.';
  return `Could not get access to ${upstream}: the token service ${reason}. ${remedy}`;
}

/** The ExchangeResult for a parsed failure. */
export function failureResult(upstream: string, failure: Extract<ParsedExchange, { ok: false }>): ExchangeResult {
  const message = failure.kind === 'refused' ? refusedMessage(upstream) : unavailableMessage(upstream, failure.reason, failure.operatorProblem);
  return failure.status ? { ok: false, kind: failure.kind, message, status: failure.status } : { ok: false, kind: failure.kind, message };
}

/**
 * Why a token endpoint URL is not acceptable, or undefined. The subject token
 * and the client secret travel to it: https only, plain http only to a
 * loopback host (an authorization server beside the bridge), and no
 * credentials or fragment in the URL itself.
 */
export function tokenEndpointProblem(endpoint: string, isLoopbackHost: (host: string) => boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    return 'must use https (http only on a loopback host such as 127.0.0.1 or localhost)';
  }
  if (url.username || url.password) return 'must not hold credentials (clientId and clientSecret are sent in the Authorization header)';
  if (url.hash) return 'must not have a fragment';
  return undefined;
}
