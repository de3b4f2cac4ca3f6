/**
 * The one sealing of state the bridge hands to clients and takes back
 * (legacy session ids, the 2026-07-28 `requestState`): AES-256-GCM, so the
 * value is encrypted (a client, or anyone who sees its traffic, cannot read
 * it) and integrity-protected (altered bytes, another key or other additional
 * data are refused). Keys derive from the shared session secret, so any
 * replica opens what any replica sealed: no session store, no sticky routing.
 *
 * Wire shape, kept byte for byte from the two codecs this replaces (values
 * sealed by a running deployment stay valid across an upgrade):
 * `<prefix>` base64url(iv(12) ‖ ciphertext ‖ tag(16)), canonical base64url
 * only. What the plaintext holds, and when it expires, is the caller's.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Why a value did not open (coarse on purpose). Returned, not thrown: a flood
 * of forged session ids costs no more than the cipher's own refusal.
 */
export interface SealFailure {
  readonly failure: 'malformed' | 'mac';
}
const MALFORMED: SealFailure = Object.freeze({ failure: 'malformed' });
const MAC: SealFailure = Object.freeze({ failure: 'mac' });

export interface Sealer {
  /** `plain` sealed, `aad` (if any) bound to it as additional authenticated data. */
  seal(plain: string, aad?: Uint8Array): string;
  /** The plaintext of a genuine value sealed with the same key and `aad`; a SealFailure otherwise. */
  open(sealed: string, aad?: Uint8Array): string | SealFailure;
}

/**
 * A 32-byte key of its own for one `purpose`, derived from the shared secret;
 * without a secret, a random one (values then open in this process only).
 */
export function sealingKey(secret: string | undefined, purpose: string): Buffer {
  return createHmac('sha256', secret ?? randomBytes(32))
    .update(purpose)
    .digest();
}

/**
 * @param key 32 bytes (see sealingKey).
 * @param prefix marks (and versions) the kind of value, e.g. `s2.`.
 * @param maxChars longest value even looked at, prefix included.
 */
export function createSealer(key: Uint8Array, prefix: string, maxChars: number): Sealer {
  if (key.length !== 32) throw new RangeError('a sealing key must be 32 bytes');
  return {
    seal(plain, aad) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      if (aad) cipher.setAAD(aad);
      const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return prefix + Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
    },
    open(value, aad) {
      if (typeof value !== 'string' || value.length > maxChars || !value.startsWith(prefix)) return MALFORMED;
      const encoded = value.slice(prefix.length);
      const raw = Buffer.from(encoded, 'base64url');
      // Only the canonical encoding: Node's decoder silently drops stray characters.
      if (raw.length < IV_BYTES + TAG_BYTES || raw.toString('base64url') !== encoded) return MALFORMED;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
        if (aad) decipher.setAAD(aad);
        decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
        return Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        return MAC; // wrong key, altered bytes, or other additional data
      }
    },
  };
}
