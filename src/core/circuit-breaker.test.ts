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

it('a trial still running after another openMs lets one more through, one per openMs (a long call holds no one back for its length)', () => {
  let now = 0;
  const b = new CircuitBreaker({ failureThreshold: 1, openMs: 1000 }, () => now);
  b.record(down);
  now = 1000;
  assert.equal(b.tryAcquire(), true, 'the first trial: a call of an hour');
  now = 1999;
  assert.equal(b.tryAcquire(), false);
  now = 2000;
  assert.equal(b.tryAcquire(), true, 'one more after openMs');
  assert.equal(b.tryAcquire(), false, 'and only one');
  b.record(ok);
  assert.equal(b.state, 'closed');
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

it("counts what says the server is down (unreachable, timeouts, 502/503/504), not one tool's 500s or other 5xx", () => {
  const b = new CircuitBreaker({ failureThreshold: 2, openMs: 1000 }, () => 0);
  const crashed: OxpCallOutcome = { kind: 'tool_crashed', status: 500, detail: 'Internal Server Error' };
  for (let i = 0; i < 10; i++) b.record(crashed);
  b.record({ kind: 'unavailable', status: 501, detail: '' });
  b.record({ kind: 'unavailable', status: 429, detail: '' });
  assert.equal(b.state, 'closed');
  for (const status of [502, 503, 504]) {
    const fresh = new CircuitBreaker({ failureThreshold: 2, openMs: 1000 }, () => 0);
    fresh.record({ kind: 'unavailable', status, detail: '' });
    fresh.record({ kind: 'timeout', detail: '' });
    assert.equal(fresh.state, 'open', String(status));
  }
});
