/**
 * Who may call this OXP server, per the OXP security page: no authentication
 * (the `Authorization` header is then ignored), an `OXP-API-Key` (also taken
 * as a bearer token, as the Stainless clients send it), or an HS256
 * JWT bearer (signature, `exp` required and at most 15 minutes ahead, `aud`
 * checked against the configured clients when present, any other `alg`
 * refused). Either configured method is enough.
 *
 * Keys are compared in constant time (digests of equal length, every key
 * tried); neither keys nor tokens are ever logged or echoed.
 */
import { indexOfDigest, secretDigest as digest } from '../../platform/shared/secret-match.js';
import type { Principal } from '../../core/principal.js';
import type { StaticCredential } from '../../config/value-source.js';
import type { IncomingHttpHeaders } from 'node:http';
import { errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { MAX_JWT_TTL_SECONDS } from '../../core/oxp-wire.js';

export interface OxpServerAuthOptions {
  /** Accepted API keys, each the principal it authenticates (config/value-source.ts). */
  apiKeys: readonly StaticCredential[];
  jwtSecret?: string;
  /** Accepted `aud` values: a token that carries `aud` must name one of them. */
  jwtAudiences: readonly string[];
  /** Clock skew allowed on `exp` (and on the 15-minute ceiling). Default 30 s. */
  clockToleranceSeconds?: number;
  now?: () => number;
}

/** Accepted: who (undefined when no method is configured); refused: why, for the log only. */
export type AuthVerdict = { ok: true; principal?: Principal } | { ok: false; reason: string };

export class OxpServerAuth {
  /** False when no method is configured: every request passes. */
  readonly required: boolean;
  /** The `WWW-Authenticate` challenge for 401s. */
  readonly challenge: string;
  private readonly keyDigests: Buffer[];
  private readonly secret: Uint8Array | undefined;
  private readonly tolerance: number;
  private readonly now: () => number;

  constructor(private readonly options: OxpServerAuthOptions) {
    this.keyDigests = options.apiKeys.map((k) => k.digest);
    this.secret = options.jwtSecret ? new TextEncoder().encode(options.jwtSecret) : undefined;
    this.required = this.keyDigests.length > 0 || this.secret !== undefined;
    this.challenge = this.secret ? 'Bearer realm="oxp"' : 'OXP-API-Key';
    this.tolerance = options.clockToleranceSeconds ?? 30;
    this.now = options.now ?? Date.now;
  }

  async check(headers: IncomingHttpHeaders): Promise<AuthVerdict> {
    if (!this.required) return { ok: true };
    const reasons: string[] = [];
    const key = headers['oxp-api-key'];
    if (this.keyDigests.length > 0 && typeof key === 'string') {
      const principal = this.keyPrincipal(key);
      if (principal) return { ok: true, principal };
      reasons.push('OXP-API-Key does not match');
    }
    const authorization = headers.authorization;
    const bearer = typeof authorization === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] : undefined;
    if (this.secret && bearer) {
      const verdict = await this.verifyJwt(bearer, this.secret);
      if (verdict.ok) return verdict;
      reasons.push(verdict.reason);
    }
    // The Stainless OXP clients (oxp-python, oxp-go) send an API key as `Authorization: Bearer <key>`.
    if (this.keyDigests.length > 0 && bearer) {
      const principal = this.keyPrincipal(bearer);
      if (principal) return { ok: true, principal };
      reasons.push('bearer token is no API key');
    }
    if (reasons.length === 0) reasons.push('no credentials');
    return { ok: false, reason: reasons.join('; ') };
  }

  private keyPrincipal(key: string): Principal | undefined {
    const found = indexOfDigest(digest(key), this.keyDigests);
    return found >= 0 ? this.options.apiKeys[found]!.principal : undefined;
  }

  private async verifyJwt(token: string, secret: Uint8Array): Promise<AuthVerdict> {
    try {
      const { payload } = await jwtVerify(token, secret, {
        algorithms: ['HS256'],
        requiredClaims: ['exp'],
        clockTolerance: this.tolerance,
        currentDate: new Date(this.now()),
      });
      const nowSeconds = this.now() / 1000;
      if (payload.exp! - nowSeconds > MAX_JWT_TTL_SECONDS + this.tolerance) return { ok: false, reason: 'JWT exp is more than 15 minutes ahead' };
      if (payload.aud !== undefined) {
        const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
        if (!audiences.some((a) => this.options.jwtAudiences.includes(a))) return { ok: false, reason: 'JWT aud names no configured client' };
      }
      return { ok: true, principal: jwtPrincipal(payload) };
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) return { ok: false, reason: 'JWT expired' };
      if (error instanceof joseErrors.JOSEAlgNotAllowed) return { ok: false, reason: 'JWT alg is not HS256' };
      if (error instanceof joseErrors.JWTClaimValidationFailed) return { ok: false, reason: `JWT claim ${error.claim} invalid: ${error.reason}` };
      if (error instanceof joseErrors.JOSEError) return { ok: false, reason: `JWT rejected (${error.code})` };
      return { ok: false, reason: 'JWT rejected' };
    }
  }
}

/**
 * The principal of an accepted HS256 JWT: its `sub`, else the client it names (`aud`), else `jwt`. Such tokens are
 * minted by the clients that hold the shared secret, so their claims name a client rather than prove a person.
 */
function jwtPrincipal(payload: JWTPayload): Principal {
  const aud = Array.isArray(payload.aud) ? payload.aud[0] : payload.aud;
  const name = typeof payload.sub === 'string' && payload.sub ? payload.sub : typeof aud === 'string' && aud ? `jwt:${aud}` : 'jwt';
  return { subject: name, name, kind: 'jwt', groups: [], scopes: [] };
}
