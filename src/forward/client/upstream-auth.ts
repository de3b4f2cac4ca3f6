/**
 * Upstream credentials per the OXP security pages: an API key header, a
 * static bearer token, or an HS256 JWT the bridge mints itself.
 */
import type { SignJWT as SignJwtClass } from 'jose';
import { MAX_JWT_TTL_SECONDS } from '../../core/oxp-wire.js';
import type { UpstreamAuth } from '../../config/upstream-settings.js';

// jose is loaded on first use: only JWT upstream auth needs it, and it costs start-up time.
let joseModule: Promise<{ SignJWT: typeof SignJwtClass }> | undefined;

export type { UpstreamAuth } from '../../config/upstream-settings.js';

const NO_HEADERS: Record<string, string> = Object.freeze({});

export type AuthHeaderSource = () => Promise<Record<string, string>> | Record<string, string>;

export function authHeaderSource(auth: UpstreamAuth, now: () => number = Date.now): AuthHeaderSource {
  switch (auth.kind) {
    case 'none':
      // One shared empty set (the exchange copies it into its own headers): no object per call.
      return () => NO_HEADERS;
    case 'api_key': {
      const headers = { [auth.header]: auth.key };
      return () => headers;
    }
    case 'bearer': {
      const headers = { authorization: `Bearer ${auth.token}` };
      return () => headers;
    }
    case 'jwt':
      return jwtSource(auth, now);
  }
}

/** Mints a token, reuses it, and mints the next one when a fifth of its life (at least 30 s) is left. */
function jwtSource(auth: Extract<UpstreamAuth, { kind: 'jwt' }>, now: () => number): AuthHeaderSource {
  const ttl = Math.min(Math.max(auth.ttlSeconds, 30), MAX_JWT_TTL_SECONDS);
  const key = new TextEncoder().encode(auth.secret);
  const margin = Math.max(30, Math.floor(ttl / 5));
  let current: { headers: Record<string, string>; renewAt: number } | undefined;
  let minting: Promise<Record<string, string>> | undefined;

  const mint = async (): Promise<Record<string, string>> => {
    const iat = Math.floor(now() / 1000);
    const { SignJWT } = await (joseModule ??= import('jose'));
    const jwt = new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt(iat)
      .setExpirationTime(iat + ttl)
      .setIssuer(auth.issuer);
    if (auth.audience) jwt.setAudience(auth.audience);
    const headers = { authorization: `Bearer ${await jwt.sign(key)}` };
    current = { headers, renewAt: (iat + ttl - margin) * 1000 };
    return headers;
  };

  return () => {
    if (current && now() < current.renewAt) return current.headers;
    minting ??= mint().finally(() => {
      minting = undefined;
    });
    return minting;
  };
}
