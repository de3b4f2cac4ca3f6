/** src/config/shutdown.ts: the drain delay's defaults by where the command listens, and its place inside the grace. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from './errors.js';
import { DEFAULT_DRAIN_DELAY_SECONDS, shutdownTimes } from './shutdown.js';

const http = (host: string) => ({ transport: 'http' as const, host });
const kubernetes = { KUBERNETES_SERVICE_HOST: '10.96.0.1' };

test('by default: 5 s in Kubernetes beyond loopback (its endpoint removal lags SIGTERM), 1 s elsewhere beyond loopback, none on loopback or stdio', () => {
  const grace = { shutdownGraceSeconds: 25 };
  assert.equal(DEFAULT_DRAIN_DELAY_SECONDS, 5);
  assert.deepEqual(shutdownTimes(grace, http('0.0.0.0'), kubernetes), { graceMs: 25_000, delayMs: 5_000 });
  assert.deepEqual(shutdownTimes(grace, http('10.1.2.3'), kubernetes), { graceMs: 25_000, delayMs: 5_000 });
  assert.deepEqual(shutdownTimes(grace, http('0.0.0.0'), {}), { graceMs: 25_000, delayMs: 1_000 });
  for (const host of ['127.0.0.1', 'localhost', '::1']) assert.equal(shutdownTimes(grace, http(host), kubernetes).delayMs, 0, host);
  assert.equal(shutdownTimes(grace, { transport: 'stdio' }, kubernetes).delayMs, 0);
});

test('the default never outlasts a shorter grace; a configured delay is used as it is, 0 included', () => {
  assert.equal(shutdownTimes({ shutdownGraceSeconds: 3 }, http('0.0.0.0'), kubernetes).delayMs, 3_000);
  assert.equal(shutdownTimes({ shutdownGraceSeconds: 25, drainDelaySeconds: 0 }, http('0.0.0.0')).delayMs, 0);
  assert.equal(shutdownTimes({ shutdownGraceSeconds: 25, drainDelaySeconds: 10 }, http('127.0.0.1')).delayMs, 10_000);
  assert.equal(shutdownTimes({ shutdownGraceSeconds: 10, drainDelaySeconds: 10 }, { transport: 'stdio' }).delayMs, 10_000);
});

test('a configured delay longer than the grace is refused, naming both keys', () => {
  assert.throws(
    () => shutdownTimes({ shutdownGraceSeconds: 25, drainDelaySeconds: 30 }, http('0.0.0.0')),
    (error: unknown) => error instanceof ConfigError && /drainDelaySeconds \(30\).*shutdownGraceSeconds \(25\)/.test(error.message),
  );
});
