/**
 * The 2026-07-28 `requestState`, sealed (platform/shared/seal.ts: AES-256-GCM):
 * encrypted (the client, and anyone who sees its traffic, cannot read the
 * check_url, call id or argument digest it carries) and integrity-protected
 * (altered bytes, another key, another principal or an expired state are
 * refused). The key derives from the shared session secret, so every replica
 * opens what any replica sealed.
 *
 * An owned copy of the SDK's `createRequestStateCodec` (docs/design.md,
 * "Owned copies of library code"), not for speed: the SDK's codec only signs,
 * so its payload is readable by the client. Held by request-state.test.ts and
 * platform/shared/seal.test.ts (fixed vectors: replicas of two releases open
 * each other's states). Delete it when the SDK's codec encrypts.
 *
 * Wire shape: `rs1.` base64url(iv ‖ ciphertext ‖ tag), the plaintext being
 * `{"p": payload, "exp": unixSeconds}`; the authenticated principal's
 * subject is bound as additional authenticated data, not stored.
 */
import { createSealer, sealingKey } from '../../platform/shared/seal.js';

const PREFIX = 'rs1.';
/** Longest echoed state even looked at (a state the bridge seals is far smaller: links are capped at 8 KiB). */
export const MAX_REQUEST_STATE_CHARS = 32_768;

export interface SealedStateCodec<T> {
  mint(payload: T, subject?: string): string;
  /** The payload of a genuine, unexpired state bound to `subject`; throws (an opaque reason) otherwise. */
  open(state: string, subject?: string): T;
}

/** The requestState key for a shared session secret (a random one without it: states open in this process only). */
export function requestStateKey(secret: string | undefined): Buffer {
  return sealingKey(secret, 'mcp-oxp-bridge/request-state');
}

/**
 * A requestState as it is sealed: short keys, as the states a client holds (minted by any replica, of this release or
 * an earlier one) carry them.
 */
interface SealedRequestState<T> {
  /** The payload. */
  p: T;
  /** Expires at, epoch seconds. */
  exp: number;
}

/** @param key 32 bytes (requestStateKey). */
export function createSealedStateCodec<T>(key: Uint8Array, ttlSeconds: number, now: () => number = Date.now): SealedStateCodec<T> {
  if (key.length !== 32) throw new RangeError('the requestState key must be 32 bytes');
  const sealer = createSealer(key, PREFIX, MAX_REQUEST_STATE_CHARS);
  const aad = (subject: string | undefined) => Buffer.from(`mcp-oxp-bridge/request-state\0${subject ?? ''}`, 'utf8');
  return {
    mint(payload, subject) {
      const sealed: SealedRequestState<typeof payload> = { p: payload, exp: Math.floor(now() / 1000) + ttlSeconds };
      return sealer.seal(JSON.stringify(sealed), aad(subject));
    },
    open(state, subject) {
      const plain = sealer.open(state, aad(subject));
      if (typeof plain !== 'string') throw new Error(plain.failure); // 'mac': wrong key, altered bytes, or another principal
      const body = JSON.parse(plain) as SealedRequestState<T>;
      if (typeof body.exp !== 'number' || now() / 1000 > body.exp) throw new Error('expired');
      return body.p;
    },
  };
}
