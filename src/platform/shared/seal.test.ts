import { it } from 'node:test';
import assert from 'node:assert/strict';
import { createSealer, sealingKey } from './seal.js';

it('seals with its prefix and a fresh IV; opens only with the same key and additional data', () => {
  const sealer = createSealer(sealingKey('one-secret', 'purpose-a'), 'x1.', 1024);
  const aad = Buffer.from('bound');
  const a = sealer.seal('{"hello":"world"}', aad);
  const b = sealer.seal('{"hello":"world"}', aad);
  assert.ok(a.startsWith('x1.') && a !== b, 'a fresh IV each time');
  assert.ok(!Buffer.from(a.slice(3), 'base64url').toString('latin1').includes('hello'), 'encrypted, not just signed');
  assert.equal(createSealer(sealingKey('one-secret', 'purpose-a'), 'x1.', 1024).open(a, aad), '{"hello":"world"}', 'another replica opens it');
  assert.deepEqual(sealer.open(a), { failure: 'mac' }, 'the additional data is bound');
  assert.deepEqual(sealer.open(a, Buffer.from('other')), { failure: 'mac' });
  assert.deepEqual(createSealer(sealingKey('one-secret', 'purpose-b'), 'x1.', 1024).open(a, aad), { failure: 'mac' }, 'one key per purpose');
  assert.deepEqual(createSealer(sealingKey(undefined, 'purpose-a'), 'x1.', 1024).open(a, aad), { failure: 'mac' }, 'no secret: a random key');
  assert.equal(sealer.open(sealer.seal('')), '', 'an empty plaintext round-trips');
});

it('refuses another prefix, over-long values, short and non-canonical encodings before decrypting', () => {
  const sealer = createSealer(sealingKey('one-secret', 'p'), 'x1.', 100);
  const value = sealer.seal('{}');
  for (const junk of [
    '',
    'x1.',
    'x1.AAAA',
    `y1.${value.slice(3)}`,
    `${value}!`,
    `${value.slice(0, 3)} ${value.slice(3)}`,
    `x1.${'A'.repeat(98)}`,
    42 as unknown as string,
  ]) {
    assert.deepEqual(sealer.open(junk), { failure: 'malformed' }, String(junk));
  }
  assert.throws(() => createSealer(Buffer.alloc(16), 'x1.', 100), RangeError);
});
