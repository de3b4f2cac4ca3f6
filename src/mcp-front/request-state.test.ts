import { it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createSealedStateCodec } from './request-state.js';

const payload = { callId: 'c-1', tool: 'Authorize', checkUrl: 'https://tools.example/auth/status' };

it('seals: the payload opens with the same key, and is not readable in the wire value', () => {
  const key = randomBytes(32);
  const state = createSealedStateCodec<typeof payload>(key, 60).mint(payload, 'alice');
  assert.deepEqual(createSealedStateCodec(key, 60).open(state, 'alice'), payload, 'another instance (replica) with the same key opens it');
  const visible = Buffer.from(state.slice(4), 'base64url').toString('latin1');
  assert.ok(!visible.includes('tools.example') && !visible.includes('Authorize'));
});

it('refuses altered bytes, another key, another principal, expiry and non-canonical encodings', () => {
  const key = randomBytes(32);
  let now = 1_000_000_000_000;
  const codec = createSealedStateCodec<typeof payload>(key, 60, () => now);
  const state = codec.mint(payload, 'alice');
  const at = state.length - 10;
  const altered = state.slice(0, at) + (state[at] === 'A' ? 'B' : 'A') + state.slice(at + 1);
  assert.throws(() => codec.open(altered, 'alice'), /mac/);
  assert.throws(() => createSealedStateCodec(randomBytes(32), 60).open(state, 'alice'), /mac/);
  assert.throws(() => codec.open(state, 'mallory'), /mac/);
  assert.throws(() => codec.open(state), /mac/);
  assert.throws(() => codec.open(`${state}!`, 'alice'), /malformed/);
  assert.throws(() => codec.open('v1.eyJwIjp7fX0.sig', 'alice'), /malformed/);
  assert.throws(() => codec.open('x'.repeat(40_000), 'alice'), /malformed/);
  now += 61_000;
  assert.throws(() => codec.open(state, 'alice'), /expired/);
});
