/**
 * Comparing a presented secret (bearer token, API key) with the configured
 * ones without timing leaks, for both faces: each secret is hashed to a
 * fixed-length SHA-256 digest, so timingSafeEqual applies whatever the
 * lengths, and every configured digest is compared, so timing says nothing
 * about which one (if any) matched.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

export function secretDigest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** Whether `given` (a secretDigest) equals any of `digests`; always compares with all of them. */
export function matchesAnyDigest(given: Buffer, digests: readonly Buffer[]): boolean {
  return indexOfDigest(given, digests) >= 0;
}

/** Which of `digests` equals `given` (-1 for none); always compares with all of them, so timing tells neither. */
export function indexOfDigest(given: Buffer, digests: readonly Buffer[]): number {
  let found = -1;
  for (let i = 0; i < digests.length; i++) if (timingSafeEqual(given, digests[i]!)) found = i;
  return found;
}
