/**
 * The 2026-07-28 `requestState`, sealed with AES-256-GCM: encrypted (the
 * client, and anyone who sees its traffic, cannot read the check_url, call
 * id or argument digest it carries) and integrity-protected (altered bytes,
 * another key, another principal or an expired state are refused). The key
 * derives from the shared session secret, so every replica opens what any
 * replica sealed. The SDK's own codec only signs (its payload is readable).
 *
 * Wire shape: `rs1.` base64url(iv ‖ ciphertext ‖ tag), the plaintext being
 * `{"p": payload, "exp": unixSeconds}`; the authenticated principal's
 * subject is bound as additional authenticated data, not stored.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const PREFIX = 'rs1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Longest echoed state even looked at (a state the bridge seals is far smaller: links are capped at 8 KiB). */
export const MAX_REQUEST_STATE_CHARS = 32_768;

export interface SealedStateCodec<T> {
  mint(payload: T, subject?: string): string;
  /** The payload of a genuine, unexpired state bound to `subject`; throws (an opaque reason) otherwise. */
  open(state: string, subject?: string): T;
}

/** @param key 32 bytes. */
export function createSealedStateCodec<T>(key: Uint8Array, ttlSeconds: number, now: () => number = Date.now): SealedStateCodec<T> {
  if (key.length !== 32) throw new RangeError('the requestState key must be 32 bytes');
  const aad = (subject: string | undefined) => Buffer.from(`mcp-oxp-bridge/request-state\0${subject ?? ''}`, 'utf8');
  return {
    mint(payload, subject) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(aad(subject));
      const plain = JSON.stringify({ p: payload, exp: Math.floor(now() / 1000) + ttlSeconds });
      const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return PREFIX + Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
    },
    open(state, subject) {
      if (typeof state !== 'string' || !state.startsWith(PREFIX) || state.length > MAX_REQUEST_STATE_CHARS) throw new Error('malformed');
      const encoded = state.slice(PREFIX.length);
      const raw = Buffer.from(encoded, 'base64url');
      // Only the canonical encoding: Node's decoder silently drops stray characters.
      if (raw.length <= IV_BYTES + TAG_BYTES || raw.toString('base64url') !== encoded) throw new Error('malformed');
      let plain: string;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
        decipher.setAAD(aad(subject));
        decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
        plain = Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        throw new Error('mac'); // wrong key, altered bytes, or another principal
      }
      const body = JSON.parse(plain) as { p: T; exp: number };
      if (typeof body.exp !== 'number' || now() / 1000 > body.exp) throw new Error('expired');
      return body.p;
    },
  };
}
