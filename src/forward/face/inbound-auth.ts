/**
 * Who may use the MCP HTTP endpoint.
 *
 * - `none`: only when bound to loopback (enforced at start-up, see
 *   unsafeExposure), unless explicitly overridden;
 * - `bearer`: static tokens, compared in constant time;
 * - `oauth`: an OAuth 2.1 resource server per the MCP authorization spec —
 *   JWT access tokens verified against the issuer's JWKS (jose), with issuer,
 *   audience, expiry and optional scope checks; failures answer 401 with a
 *   `WWW-Authenticate` challenge pointing at the protected-resource metadata.
 *
 * Invariant: the client's token authenticates the client to the bridge only;
 * it is never forwarded upstream and never logged. The resource this server
 * protects (and where its metadata lives) comes from configuration
 * (`auth.oauth.resourceUrl`, required in OAuth mode), never from a request's
 * Host header, which any client may set.
 */
import { indexOfDigest, secretDigest as digest } from '../../platform/shared/secret-match.js';
import type { BridgeConfig } from '../../config/types.js';
import { effectiveAuthMode } from '../../config/auth-mode.js';
import { readFileSync } from 'node:fs';
import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import type { Principal } from '../../core/principal.js';
import { claimValues } from '../../core/access-policy.js';
import { plainCredential, staticCredentials, type NamedSecretConfig, type StaticCredential } from '../../config/value-source.js';
import { rememberCallerToken } from '../bridge/caller-token.js';
import { JSONRPC_UNAUTHORIZED } from '../../core/mcp-wire.js';

export type { Principal } from '../../core/principal.js';

export interface InboundAuthConfig {
  mode: 'none' | 'bearer' | 'oauth';
  /** Static tokens: plain, or named principals with groups (their values read from env or file). */
  tokens?: NamedSecretConfig[];
  tokensFile?: string;
  oauth?: {
    issuer: string;
    audience: string;
    jwksUrl: string;
    /** This server's public URL (the protected resource), e.g. https://mcp.example.com/mcp; required in OAuth mode. */
    resourceUrl?: string;
    requiredScopes?: string[];
    /** The claim naming the user (default `sub`) and the claims holding groups (none by default). */
    claims?: { user?: string; groups?: string[] };
  };
  allowUnauthenticated: boolean;
}

/** An HTTP answer, independent of any server framework. */
export interface HttpRefusal {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type AuthOutcome = { ok: true; principal?: Principal } | ({ ok: false } & HttpRefusal);

/** Nobody authenticated, where no authentication is configured: one shared outcome, read only. */
const NOBODY: AuthOutcome = Object.freeze({ ok: true });

export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';
/** JWS algorithms accepted for access tokens: asymmetric only (never `none`, never HS*). */
const ACCEPTED_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

export class InboundAuth {
  private readonly credentials: StaticCredential[];
  private readonly tokenDigests: Buffer[];
  /** jose, loaded only in OAuth mode (start-up time), with the issuer's key set. */
  private oauthKit: Promise<{ jwtVerify: typeof import('jose').jwtVerify; jwks: JWTVerifyGetKey }> | undefined;
  /** Where the protected-resource metadata is published (OAuth mode), for the challenge's resource_metadata. */
  private readonly metadataUrl: string | undefined;

  constructor(
    private readonly config: InboundAuthConfig,
    jwks?: JWTVerifyGetKey,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    const fromFile = config.tokensFile ? readTokensFile(config.tokensFile).map((t) => plainCredential(t, 'token')) : [];
    this.credentials = [...staticCredentials(config.tokens ?? [], 'token', 'auth.tokens', env), ...fromFile];
    this.tokenDigests = this.credentials.map((c) => c.digest);
    if (config.mode === 'bearer' && this.tokenDigests.length === 0)
      throw new Error('auth mode "bearer" needs at least one token (MCP_AUTH_TOKENS or auth.tokensFile)');
    if (config.mode === 'oauth') {
      const problem = oauthConfigProblem(config);
      if (problem) throw new Error(problem);
      this.metadataUrl = `${new URL(config.oauth!.resourceUrl!).origin}${PROTECTED_RESOURCE_PATH}`;
      this.oauthKit = import('jose').then((jose) => ({
        jwtVerify: jose.jwtVerify,
        jwks: jwks ?? jose.createRemoteJWKSet(new URL(config.oauth!.jwksUrl), { timeoutDuration: 5_000, cooldownDuration: 30_000 }),
      }));
    }
  }

  get mode(): InboundAuthConfig['mode'] {
    return this.config.mode;
  }

  /** The principals of the named static tokens (names and groups from the configuration; no secret). */
  namedPrincipals(): Principal[] {
    // Only bearer mode authenticates by static token: in any other mode no caller is one of them.
    if (this.config.mode !== 'bearer') return [];
    return this.credentials.filter((c) => c.principal.named).map((c) => c.principal);
  }

  /**
   * @param authorization the request's `Authorization` header. Synchronous unless a JWT is verified (OAuth mode):
   * the face then admits a request without a promise of its own (bench/README.md, issue 39).
   */
  authenticate(authorization: string | undefined): AuthOutcome | Promise<AuthOutcome> {
    if (this.config.mode === 'none') return NOBODY;
    const header = authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) return this.challenge(header ? 'invalid_request' : undefined, 'Bearer token required');
    const token = match[1]!;
    if (this.config.mode === 'bearer') {
      const found = indexOfDigest(digest(token), this.tokenDigests);
      return found >= 0 ? { ok: true, principal: this.credentials[found]!.principal } : this.challenge('invalid_token', 'Invalid token');
    }
    return this.verifyJwt(token);
  }

  /** OAuth mode: the bearer token is a JWT of the configured issuer and audience, with the required scopes. */
  private async verifyJwt(token: string): Promise<AuthOutcome> {
    const oauth = this.config.oauth!;
    try {
      const { jwtVerify, jwks } = await this.oauthKit!;
      const { payload } = await jwtVerify(token, jwks, {
        issuer: oauth.issuer,
        audience: oauth.audience,
        algorithms: ACCEPTED_ALGORITHMS,
        requiredClaims: ['exp', 'sub'],
      });
      const principal = oauthPrincipal(payload, oauth.claims);
      if (!principal) return this.challenge('invalid_token', 'Invalid or expired token');
      const missing = (oauth.requiredScopes ?? []).filter((s) => !principal.scopes.includes(s));
      if (missing.length) return this.challenge('insufficient_scope', `Missing scope: ${missing.join(' ')}`, 403, missing);
      // Kept apart from the principal (never logged): the subject token of a token exchange.
      rememberCallerToken(principal, token);
      return { ok: true, principal };
    } catch {
      return this.challenge('invalid_token', 'Invalid or expired token');
    }
  }

  /** RFC 9728 protected-resource metadata (OAuth mode only). */
  protectedResourceMetadata(): Record<string, unknown> | undefined {
    if (this.config.mode !== 'oauth') return undefined;
    const oauth = this.config.oauth!;
    return {
      resource: oauth.resourceUrl,
      authorization_servers: [oauth.issuer],
      bearer_methods_supported: ['header'],
      ...(oauth.requiredScopes?.length ? { scopes_supported: oauth.requiredScopes } : {}),
    };
  }

  private challenge(error: string | undefined, description: string, status = 401, scopes?: string[]): { ok: false } & HttpRefusal {
    const params: string[] = [];
    if (this.metadataUrl) params.push(`resource_metadata="${this.metadataUrl}"`);
    if (error) params.push(`error="${error}"`, `error_description="${description}"`);
    if (scopes?.length) params.push(`scope="${scopes.join(' ')}"`);
    const headers = { 'content-type': 'application/json', 'www-authenticate': `Bearer ${params.join(', ')}`.trim() };
    return { ok: false, status, headers, body: JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: JSONRPC_UNAUTHORIZED, message: description } }) };
  }
}

/** The principal a verified access token names; undefined when its user claim is missing or not a string. */
function oauthPrincipal(payload: JWTPayload, claims: { user?: string; groups?: string[] } | undefined): Principal | undefined {
  const user = claimAt(payload, claims?.user ?? 'sub');
  if (typeof user !== 'string' || user === '') return undefined;
  const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : Array.isArray(payload.scp) ? payload.scp.map(String) : [];
  const groups = (claims?.groups ?? []).flatMap((path) => {
    const value = claimAt(payload, path);
    return typeof value === 'string' ? value.split(' ').filter(Boolean) : claimValues(value);
  });
  const clientId = payload.client_id ?? payload.azp;
  return {
    subject: user,
    name: user,
    kind: 'oauth',
    groups: [...new Set(groups)].slice(0, 256),
    scopes,
    claims: payload,
    ...(typeof clientId === 'string' ? { clientId } : {}),
  };
}

/** A claim by dotted path (`realm_access.roles`), own properties only. */
function claimAt(payload: JWTPayload, path: string): unknown {
  let value: unknown = payload;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function readTokensFile(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split(/[\n,]/)
    .map((t) => t.trim())
    .filter((t) => t && !t.startsWith('#'));
}

/** What OAuth mode lacks to start (it names the protected resource from configuration only), or undefined. */
export function oauthConfigProblem(auth: Pick<InboundAuthConfig, 'mode' | 'oauth'>): string | undefined {
  if (auth.mode !== 'oauth') return undefined;
  if (!auth.oauth) return 'auth mode "oauth" needs auth.oauth (MCP_OAUTH_ISSUER, MCP_OAUTH_AUDIENCE, MCP_OAUTH_JWKS_URL, MCP_OAUTH_RESOURCE_URL)';
  if (!auth.oauth.resourceUrl) {
    return (
      'auth mode "oauth" needs the public URL of this MCP endpoint, e.g. https://mcp.example.com/mcp ' +
      '(auth.oauth.resourceUrl, --oauth-resource-url or MCP_OAUTH_RESOURCE_URL): it is the protected resource clients request tokens for'
    );
  }
  try {
    new URL(auth.oauth.resourceUrl);
  } catch {
    return `auth.oauth.resourceUrl is not a URL: ${auth.oauth.resourceUrl}`;
  }
  return undefined;
}

/**
 * Refuses to expose an unauthenticated endpoint beyond loopback unless the
 * operator opted out explicitly. Returns the reason to refuse, or undefined.
 */
export function unsafeExposure(host: string, auth: InboundAuthConfig, isLoopback: (host: string) => boolean): string | undefined {
  if (auth.mode !== 'none' || auth.allowUnauthenticated || isLoopback(host)) return undefined;
  return (
    `refusing to serve MCP on ${host} without authentication. ` +
    'Set MCP_AUTH_TOKENS=<token>[,<token>…] (clients then send "Authorization: Bearer <token>"), or configure OAuth ' +
    '(all four of MCP_OAUTH_ISSUER, MCP_OAUTH_AUDIENCE, MCP_OAUTH_JWKS_URL and MCP_OAUTH_RESOURCE_URL), or opt out with MCP_ALLOW_UNAUTHENTICATED=true ' +
    '(only behind something else that authenticates).'
  );
}

/** The inbound auth settings, with the mode the configuration means (config/auth-mode.ts). */
export function inboundAuthConfig(config: BridgeConfig): InboundAuthConfig {
  return { ...config.auth, mode: effectiveAuthMode(config.auth) };
}
