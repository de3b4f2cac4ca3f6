/**
 * The caller's own OAuth access token, kept beside its principal rather than
 * in it: token exchange (RFC 8693) needs it as the subject token, and
 * nothing else may ever see it. A WeakMap keyed by the principal object
 * means logging, serialising or copying a principal cannot carry the token,
 * and the token is gone with the request's principal.
 */
import type { Principal } from '../../core/principal.js';

const tokens = new WeakMap<Principal, string>();

export function rememberCallerToken(principal: Principal, token: string): void {
  tokens.set(principal, token);
}

/** The access token the principal authenticated with (OAuth callers only). */
export function callerTokenOf(principal: Principal | undefined): string | undefined {
  return principal ? tokens.get(principal) : undefined;
}
