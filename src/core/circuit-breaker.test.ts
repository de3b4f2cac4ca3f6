import { it } from 'node:test';
import assert from 'node:assert/strict';
import { CircuitBreaker } from './circuit-breaker.js';
import type { OxpCallOutcome } from './oxp-wire.js';

const down: OxpCallOutcome = { kind: 'unreachable', detail: 'ECONNREFUSED', beforeSend: true };
const ok: OxpCallOutcome = { kind: 'success', value: null };
const toolError: OxpCallOutcome = { kind: 'tool_error', error: { message: 'no', canRetry: false } };

it('opens after consecutive transport failures, not after tool errors', () => {
  let now = 0;
  const b = new CircuitBreaker({ failureThreshold: 3, openMs: 1000 }, () => now);
  for (let i = 0; i < 10; i++) b.record(toolError);
  assert.equal(b.state, 'closed');
  b.record(down);
  b.record(down);
  b.record(ok); // a success resets the count
  b.record(down);
  b.record(down);
  assert.equal(b.state, 'closed');
  b.record(down);
  assert.equal(b.state, 'open');
  assert.equal(b.tryAcquire(), false);
  now = 400;
  assert.equal(b.retryAfterMs, 600);
});

it('half-opens after openMs: one trial at a time; success closes, failure re-opens', () => {
  let now = 0;
  const b = new CircuitBreaker({ failureThreshold: 1, openMs: 1000 }, () => now);
  b.record(down);
  now = 1000;
  assert.equal(b.state, 'half_open');
  assert.equal(b.tryAcquire(), true);
  assert.equal(b.tryAcquire(), false, 'only one trial');
  b.record(down);
  assert.equal(b.state, 'open');
  now = 2000;
  assert.equal(b.tryAcquire(), true);
  b.record(ok);
  assert.equal(b.state, 'closed');
  assert.equal(b.tryAcquire(), true);
});

it('a cancelled trial frees the slot', () => {
  let now = 0;
  const b = new CircuitBreaker({ failureThreshold: 1, openMs: 10 }, () => now);
  b.record(down);
  now = 10;
  assert.equal(b.tryAcquire(), true);
  b.release();
  assert.equal(b.tryAcquire(), true);
});
