/**
 * A real OAuth 2.0 authorization server for tests: oidc-provider (panva's
 * certified OpenID Provider), on a free loopback port, with the RFC 8693
 * token-exchange grant.
 *
 * oidc-provider ships no token-exchange grant; its documentation ("Custom
 * Grant Types") names token exchange as what `provider.registerGrantType` is
 * for. The handler below uses its public API only: `registerGrantType`, the
 * `AccessToken` model (JWT format through a resource server), the
 * `extraTokenClaims` hook (for `act`) and its `errors`.
 *
 * - Subject tokens: `mintUserToken` issues the test user's access token for
 *   the bridge's audience through the same model and keys (as the
 *   authorization-code flow would, without a browser).
 * - Keys: a fresh RS256 key per server, published at `jwksUrl`; the
 *   handler verifies subject tokens against that same public key.
 * - Token exchange: the bridge's client authenticates with
 *   `client_secret_basic` (oidc-provider checks it, 401 invalid_client
 *   otherwise); the subject token must be this issuer's, unexpired, for the
 *   bridge's audience (`invalid_grant` otherwise); the requested `audience`
 *   or `resource` must be one of `upstreamAudiences` (`invalid_target`).
 *   The issued JWT keeps `sub` and names the bridge's client in `act`
 *   (RFC 8693 §4.1).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLocalJWKSet, exportJWK, generateKeyPair, jwtVerify, type JWK } from 'jose';
import Provider, { errors, type Client, type ResourceServerInstance } from 'oidc-provider';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
/** `gty` of exchanged tokens: the hook that adds `act` recognises them by it. */
const EXCHANGED = 'token-exchange';
/** The MCP client the test user signed in with (subject tokens name it as client_id). */
const USER_CLIENT_ID = 'mcp-client';

export interface OAuthServerOptions {
  /** The bridge's audience: subject tokens are for it. */
  bridgeAudience: string;
  /** The bridge's own client at this server. */
  bridgeClient: { id: string; secret: string };
  /** Audiences (or resources) a token may be exchanged for. */
  upstreamAudiences: string[];
  /** Lifetime of exchanged tokens. */
  exchangedTtlSeconds?: number;
}

export interface MintOptions {
  audience?: string;
  scope?: string;
  expiresInSeconds?: number;
  /** Issue a token that expired this many seconds ago. */
  expiredSecondsAgo?: number;
}

export interface OAuthServer {
  issuer: string;
  tokenEndpoint: string;
  jwksUrl: string;
  /** Token-exchange requests the grant handler saw (refused ones included); a cache hit adds none. */
  readonly exchangeRequests: number;
  /** Tokens issued by exchange. */
  readonly exchangesIssued: number;
  mintUserToken(sub: string, options?: MintOptions): Promise<string>;
  close(): Promise<void>;
}

export async function startOAuthServer(options: OAuthServerOptions): Promise<OAuthServer> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = randomUUID();
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const privateJwk: JWK = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const provider = createProvider(issuer, options.bridgeClient, privateJwk);
  const counts = { exchangeRequests: 0, exchangesIssued: 0 };
  provider.registerGrantType(
    TOKEN_EXCHANGE_GRANT,
    exchangeHandler(provider, options, subjectVerifier(issuer, options.bridgeAudience, publicJwk), counts),
    ['subject_token', 'subject_token_type', 'requested_token_type', 'audience', 'resource', 'scope', 'actor_token', 'actor_token_type'],
    ['audience', 'resource'],
  );
  const handle = provider.callback();
  // Koa's handler settles its own promise (errors become answers); the server only needs it started.
  http.on('request', (req, res) => void handle(req, res));
  return {
    issuer,
    tokenEndpoint: `${issuer}/token`,
    jwksUrl: `${issuer}/jwks`,
    get exchangeRequests() {
      return counts.exchangeRequests;
    },
    get exchangesIssued() {
      return counts.exchangesIssued;
    },
    mintUserToken: userTokenMinter(provider, options.bridgeAudience),
    close: () => closeServer(http),
  };
}

/** The provider: the bridge's confidential client, the MCP client the user signed in with, the key, and `act` on exchanged tokens. */
function createProvider(issuer: string, bridgeClient: OAuthServerOptions['bridgeClient'], privateJwk: JWK): Provider {
  return new Provider(issuer, {
    clients: [
      {
        client_id: bridgeClient.id,
        client_secret: bridgeClient.secret,
        grant_types: [TOKEN_EXCHANGE_GRANT],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_basic',
      },
      { client_id: USER_CLIENT_ID, grant_types: [], response_types: [], redirect_uris: [], token_endpoint_auth_method: 'none' },
    ],
    jwks: { keys: [privateJwk] },
    features: { devInteractions: { enabled: false } },
    // RFC 8693 §4.1: the exchanged token says who acts for the subject.
    extraTokenClaims: (_ctx, token) => (token.kind === 'AccessToken' && token.gty === EXCHANGED ? { act: { sub: token.clientId } } : undefined),
  });
}

/** The grant handler; oidc-provider has authenticated the client (and checked it may use this grant) before it runs. */
function exchangeHandler(
  provider: Provider,
  options: OAuthServerOptions,
  verifySubject: (token: unknown) => Promise<string>,
  counts: { exchangeRequests: number; exchangesIssued: number },
): Parameters<Provider['registerGrantType']>[1] {
  const allowed = new Set(options.upstreamAudiences);
  const ttl = options.exchangedTtlSeconds ?? 300;
  return async (ctx) => {
    counts.exchangeRequests += 1;
    const params = ctx.oidc.params;
    if (params.subject_token_type !== ACCESS_TOKEN_TYPE) throw new errors.InvalidRequest('subject_token_type must be an access token');
    if (params.requested_token_type !== undefined && params.requested_token_type !== ACCESS_TOKEN_TYPE) {
      throw new errors.InvalidRequest('only access tokens are issued');
    }
    const target = requestedTarget(params.audience, params.resource);
    if (!target || !allowed.has(target)) throw new errors.InvalidTarget('the requested audience is not one this server issues tokens for');
    const sub = await verifySubject(params.subject_token);
    const scope = typeof params.scope === 'string' ? params.scope : undefined;
    const token = new provider.AccessToken({
      client: ctx.oidc.client,
      accountId: sub,
      grantId: randomUUID(),
      gty: EXCHANGED,
      scope,
      resourceServer: jwtResourceServer(target, ttl),
      expiresIn: ttl,
    });
    const value = await token.save();
    counts.exchangesIssued += 1;
    ctx.body = { access_token: value, issued_token_type: ACCESS_TOKEN_TYPE, token_type: 'Bearer', expires_in: token.expiration, ...(scope ? { scope } : {}) };
  };
}

/** Issues the test user's access token, as the authorization-code flow would, with the provider's own model and key. */
function userTokenMinter(provider: Provider, bridgeAudience: string): OAuthServer['mintUserToken'] {
  return async (sub, mint = {}) => {
    const client = (await provider.Client.find(USER_CLIENT_ID)) as Client;
    const expiresIn = mint.expiresInSeconds ?? 600;
    const token = new provider.AccessToken({
      client,
      accountId: sub,
      grantId: randomUUID(),
      gty: 'authorization_code',
      scope: mint.scope ?? 'tools:call',
      resourceServer: jwtResourceServer(mint.audience ?? bridgeAudience, expiresIn),
      expiresIn,
    });
    if (mint.expiredSecondsAgo !== undefined) {
      const now = Math.floor(Date.now() / 1000);
      Object.assign(token, { iat: now - mint.expiredSecondsAgo - 600, exp: now - mint.expiredSecondsAgo });
    }
    return token.save();
  };
}

/** A resource server whose access tokens are JWTs signed with the provider's key. */
function jwtResourceServer(audience: string, ttlSeconds: number): ResourceServerInstance {
  const scope = 'tools:call upstream:read';
  return { audience, scope, scopes: new Set(scope.split(' ')), accessTokenFormat: 'jwt', accessTokenTTL: ttlSeconds, identifier: () => audience };
}

/** One target, named by `audience`, `resource` or both alike; several are not supported (invalid_target). */
function requestedTarget(audience: unknown, resource: unknown): string | undefined {
  const values = [audience, resource].flat().filter((v) => v !== undefined);
  if (values.some((v) => typeof v !== 'string') || new Set(values).size !== 1) return undefined;
  return values[0] as string;
}

/** Verifies a subject token: this issuer's key, unexpired, an access token for the bridge. Its `sub`, or invalid_grant. */
function subjectVerifier(issuer: string, audience: string, publicJwk: JWK): (token: unknown) => Promise<string> {
  const keys = createLocalJWKSet({ keys: [publicJwk] });
  return async (token) => {
    try {
      if (typeof token !== 'string') throw new Error('no subject token');
      const { payload } = await jwtVerify(token, keys, { issuer, audience, typ: 'at+jwt', algorithms: ['RS256'], requiredClaims: ['sub', 'exp'] });
      return payload.sub!;
    } catch {
      throw new errors.InvalidGrant('the subject token is invalid, expired or not meant for this client');
    }
  };
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
