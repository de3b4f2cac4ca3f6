import { it } from 'node:test';
import assert from 'node:assert/strict';
import { ClientLimits } from './client-limits.js';

it('rate-limits per client with a token bucket and says when to retry', () => {
  let now = 0;
  const limits = new ClientLimits({ requestsPerMinute: 60, burst: 2, maxInFlight: 0 }, () => now);
  for (let i = 0; i < 2; i++) {
    const a = limits.admit('alice');
    assert.ok(a.ok);
    a.release();
  }
  const refused = limits.admit('alice');
  assert.ok(!refused.ok && refused.reason === 'rate_limited' && refused.retryAfterSeconds === 1);
  assert.ok(limits.admit('bob').ok, 'other clients are unaffected');
  now += 1000;
  assert.ok(limits.admit('alice').ok, 'one token back after a second');
});

it('caps concurrent requests per client until they are released', () => {
  const limits = new ClientLimits({ requestsPerMinute: 0, burst: 0, maxInFlight: 2 });
  const a = limits.admit('c');
  const b = limits.admit('c');
  assert.ok(a.ok && b.ok);
  const c = limits.admit('c');
  assert.ok(!c.ok && c.reason === 'too_many_in_flight');
  a.release();
  a.release(); // idempotent
  assert.ok(limits.admit('c').ok);
  assert.ok(!limits.admit('c').ok);
});

it('charges a batch per message, all or nothing, and releases them all together', () => {
  const limits = new ClientLimits({ requestsPerMinute: 6, burst: 2, maxInFlight: 0 }, () => 0);
  const a = limits.admit('c');
  assert.ok(a.ok);
  const refused = a.charge(49);
  assert.ok(refused && refused.reason === 'rate_limited' && /batch of 50/.test(refused.message));
  assert.equal(a.charge(1), undefined, 'the refused charge took nothing: one token is still there');
  assert.ok(!limits.admit('c').ok, 'two requests charged: the bucket is empty');

  const inFlight = new ClientLimits({ requestsPerMinute: 0, burst: 0, maxInFlight: 3 });
  const b = inFlight.admit('d');
  assert.ok(b.ok);
  assert.equal(b.charge(2), undefined);
  assert.ok(!inFlight.admit('d').ok, 'the batch holds all three slots');
  b.release();
  assert.ok(inFlight.admit('d').ok, 'released together');
});
