import { it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createSealedStateCodec, requestStateKey } from './request-state.js';

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

it('opens states sealed before the sealing moved to platform/shared/seal.ts (rounds in flight survive the upgrade)', () => {
  // Minted by the previous codec (its own AES-256-GCM code, 767e2b1), the key derived from this secret as the entry module of then did (now commands/forward.ts).
  const codec = createSealedStateCodec(requestStateKey('vector-secret-0123456789'), 900, () => 1_790_000_000_000);
  const forAlice =
    'rs1.CBcgQgkYarGsKHbh3EOiCWejiXszGZ7NWaJIzs1J9ZuJOCFzH221GzoPMprJDbGTljtPM_whOfhMPuY93sArmhLsmeJ9aJYGWbNBxHr39B69-CKYMqNXne7i1dhnEEKLhWPioScIGdf7_2Y-1CY14cBnMag2z6IMc_UlzljGPsjlxq6dmw';
  assert.deepEqual(codec.open(forAlice, 'alice'), payload);
  assert.throws(() => codec.open(forAlice, 'mallory'), /mac/);
  assert.deepEqual(codec.open('rs1.xA2WrhFVWMvaIXXJbIU0sYgW4CXMpAnJ1cW9afD6tYeLht6MRwOwV_6mMuI5BqxKRRKVq_sgwANqVPBXVh5i1vt1mw'), { callId: 'c-2' });
});
