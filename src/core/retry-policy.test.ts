import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { OxpCallOutcome } from './oxp-wire.js';
import { nextDelayMs, type RetryPolicy } from './retry-policy.js';

const policy: RetryPolicy = { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1000, maxRetryAfterMs: 2000, retryToolErrors: false };
const half = () => 0.5;

it('retries only failures where a second attempt is safe or asked for', () => {
  const retryable: OxpCallOutcome[] = [
    { kind: 'unreachable', detail: 'ECONNREFUSED', beforeSend: true },
    ...[408, 429, 502, 503, 504].map((status) => ({ kind: 'unavailable' as const, status, detail: '' })),
  ];
  const final: OxpCallOutcome[] = [
    { kind: 'unreachable', detail: 'ECONNRESET', beforeSend: false },
    { kind: 'tool_crashed', status: 500, detail: '' },
    { kind: 'unavailable', status: 501, detail: '' },
    { kind: 'timeout', detail: '' },
    { kind: 'success', value: 1 },
    { kind: 'invalid_input', message: '', parameterErrors: [] },
    { kind: 'unknown_tool', message: '' },
    { kind: 'auth_failed', status: 401, detail: '' },
    { kind: 'tool_error', error: { message: 'm', canRetry: true } },
  ];
  for (const o of retryable) assert.notEqual(nextDelayMs(o, 1, policy, half), null, JSON.stringify(o));
  for (const o of final) assert.equal(nextDelayMs(o, 1, policy, half), null, JSON.stringify(o));
});

it('backs off exponentially with jitter, capped, and stops after maxAttempts', () => {
  const o: OxpCallOutcome = { kind: 'unavailable', status: 503, detail: '' };
  assert.equal(nextDelayMs(o, 1, policy, half), 50);
  assert.equal(nextDelayMs(o, 2, policy, half), 100);
  assert.equal(
    nextDelayMs(o, 2, { ...policy, maxAttempts: 10 }, () => 0.999),
    200,
  );
  assert.equal(
    nextDelayMs(o, 9, { ...policy, maxAttempts: 10 }, () => 0.999),
    999,
  );
  assert.equal(nextDelayMs(o, 3, policy, half), null);
});

it('honours a server-requested wait up to the cap, and does not retry beyond it', () => {
  assert.equal(nextDelayMs({ kind: 'unavailable', status: 429, detail: '', retryAfterMs: 1500 }, 1, policy, half), 1500);
  assert.equal(nextDelayMs({ kind: 'unavailable', status: 429, detail: '', retryAfterMs: 2500 }, 1, policy, half), null);
});

it('retries can_retry tool errors only when enabled, after their retry_after_ms', () => {
  const o: OxpCallOutcome = { kind: 'tool_error', error: { message: 'busy', canRetry: true, retryAfterMs: 500 } };
  assert.equal(nextDelayMs(o, 1, { ...policy, retryToolErrors: true }, half), 500);
  assert.equal(nextDelayMs({ kind: 'tool_error', error: { message: 'no', canRetry: false } }, 1, { ...policy, retryToolErrors: true }, half), null);
});
