/**
 * A random (version 4) UUID, the OXP call_id of each forward call, as `crypto.randomUUID()` makes it: 16 bytes of a
 * batch filled by `crypto.randomFillSync`, the version and variant bits set, written as 36 hex characters into one
 * buffer and read out as one string. Node 20's `randomUUID` builds the string by concatenating 20 pieces (a cons string
 * each): 0.5 KB of every call's garbage (`npm run bench:alloc`, issue 39), this ~60 B.
 *
 * An owned copy of library code (docs/design.md, "Owned copies of library code"): the randomness stays the library's,
 * only the formatting is ours. Its receipt: bench:alloc, −0.6 KB per call, more than one window's spread (±0.4 KB;
 * bench/README.md, issue 39, "Garbage, third round"). Held to the library by random-uuid.test.ts (the same form
 * as `randomUUID`'s, every byte's hex). Delete it when `randomUUID` allocates its one string only (Node 20 does not;
 * check `ALLOC_TOP=45 npm run bench:alloc` on a newer Node).
 */
import { randomFillSync } from 'node:crypto';

/** UUIDs per batch of randomness, as Node's own entropy cache (one `randomFillSync` per 128). */
const BATCH = 128;
const entropy = Buffer.alloc(16 * BATCH);
let next = BATCH;
const text = Buffer.alloc(36);
const HEX = Buffer.from('0123456789abcdef', 'latin1');

/** A fresh random UUID (RFC 9562 version 4), lower case, as `crypto.randomUUID()` writes it. */
export function randomUuid(): string {
  if (next === BATCH) {
    randomFillSync(entropy);
    next = 0;
  }
  const at = 16 * next++;
  return formatUuid(entropy, at);
}

/** The 16 bytes at `at` as a version 4 UUID: its version (4) and variant (10xx) bits set, the rest as they are. */
export function formatUuid(bytes: Uint8Array, at: number): string {
  let out = 0;
  for (let i = 0; i < 16; i++) {
    let b = bytes[at + i]!;
    if (i === 6) b = (b & 0x0f) | 0x40;
    else if (i === 8) b = (b & 0x3f) | 0x80;
    if (i === 4 || i === 6 || i === 8 || i === 10) text[out++] = 45; // -
    text[out++] = HEX[b >> 4]!;
    text[out++] = HEX[b & 15]!;
  }
  return text.toString('latin1', 0, 36);
}
