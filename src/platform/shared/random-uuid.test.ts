import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { formatUuid, randomUuid } from './random-uuid.js';

/** RFC 9562's version 4 form, as `crypto.randomUUID()` writes it (lower case). */
const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The same bytes as the library's hex, with the version and variant bits set and the dashes where they go. */
function byHex(bytes: Buffer): string {
  const b = Buffer.from(bytes);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

describe('randomUuid', () => {
  it('has the form crypto.randomUUID gives', () => {
    assert.match(randomUUID(), V4);
    for (let i = 0; i < 1000; i++) assert.match(randomUuid(), V4);
  });

  it('writes every byte as the library’s hex encoding does, at any offset', () => {
    const edges = [Buffer.alloc(16, 0), Buffer.alloc(16, 0xff), Buffer.from([...Array(16).keys()].map((i) => i * 17))];
    for (const bytes of [...edges, ...Array.from({ length: 200 }, () => randomBytes(16))]) {
      assert.equal(formatUuid(bytes, 0), byHex(bytes));
      assert.equal(formatUuid(Buffer.concat([randomBytes(5), bytes]), 5), byHex(bytes));
    }
  });

  it('never repeats across its batches of randomness', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) seen.add(randomUuid());
    assert.equal(seen.size, 1000);
  });
});
