import { it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { inspect } from 'node:util';
import { ConfigError } from '../../config/errors.js';
import { createLimitStore, limitStoreHooks, type LimitVerdict } from './limit-store.js';
import { MemoryLimitStore } from './memory-limit-store.js';
import { redisTarget } from './redis-connection.js';
import { readAnswer, redisKeys } from './redis-script.js';

const hooks = { onUnavailable: () => assert.fail('the memory store is never unavailable') };
const passed = (verdicts: LimitVerdict[]) => verdicts.filter((v) => v.ok).length;

it('without store.redis the store is per process, and no Redis client is loaded (start-up time)', async () => {
  assert.equal(createLimitStore(undefined, hooks).kind, 'memory');
  const store = createLimitStore({}, hooks);
  assert.equal(store.kind, 'memory');
  assert.ok((await store.acquire('k', { requestsPerMinute: 1, burst: 1, maxInFlight: 1 })).ok);
  const loaded = Object.keys(createRequire(import.meta.url).cache).filter((path) => path.includes('/node_modules/ioredis/'));
  assert.deepEqual(loaded, []);
});

it('rate-limits each key with a token bucket: the burst passes, then one per interval, and says when to retry', async () => {
  let now = 0;
  const store = new MemoryLimitStore(100, () => now);
  const spec = { requestsPerMinute: 60, burst: 5, maxInFlight: 0 };
  const first = await Promise.all(Array.from({ length: 20 }, () => store.acquire('rule:1|principal:alice', spec)));
  assert.equal(passed(first), 5);
  const refused = first.find((v) => !v.ok);
  assert.ok(refused && !refused.ok && refused.reason === 'rate_limited' && refused.retryAfterSeconds === 1, inspect(refused));
  assert.match(refused.message, /60 requests per minute\.$/);
  assert.ok((await store.acquire('rule:1|principal:bob', spec)).ok, 'other keys are unaffected');
  now += 1000;
  assert.ok((await store.acquire('rule:1|principal:alice', spec)).ok, 'one token back after a second');
  assert.ok(!(await store.acquire('rule:1|principal:alice', spec)).ok);
});

it('caps what is in flight per key until released; release is idempotent', async () => {
  const store = new MemoryLimitStore();
  const spec = { requestsPerMinute: 0, burst: 0, maxInFlight: 2 };
  const [a, b, c] = await Promise.all([store.acquire('k', spec), store.acquire('k', spec), store.acquire('k', spec)]);
  assert.ok(a?.ok && b?.ok);
  assert.ok(c && !c.ok && c.reason === 'too_many_in_flight' && c.retryAfterSeconds === 1);
  a.release();
  a.release();
  assert.ok((await store.acquire('k', spec)).ok, 'the released slot is back');
  assert.ok(!(await store.acquire('k', spec)).ok, 'but only one: the second release gave nothing');
});

it('a refusal for the in-flight cap spends no token', async () => {
  const store = new MemoryLimitStore(100, () => 0);
  const spec = { requestsPerMinute: 1, burst: 2, maxInFlight: 1 };
  const held = await store.acquire('k', spec);
  assert.ok(held.ok);
  assert.equal((await store.acquire('k', spec)).ok, false);
  held.release();
  assert.ok((await store.acquire('k', spec)).ok, 'the second token is still there');
});

it('a spec that limits nothing passes without counting', async () => {
  const store = new MemoryLimitStore(1);
  for (let i = 0; i < 100; i++) assert.ok((await store.acquire(`k${i}`, { requestsPerMinute: 0, burst: 0, maxInFlight: 0 })).ok);
});

it('long or odd keys become a bounded hash under the prefix; readable ones stay readable', () => {
  assert.deepEqual(redisKeys('p:', 'rule:3|principal:alice|tool:Calc_Add'), {
    bucket: 'p:{rule:3|principal:alice|tool:Calc_Add}:rate',
    leases: 'p:{rule:3|principal:alice|tool:Calc_Add}:leases',
  });
  for (const odd of ['x'.repeat(10_000), 'rule:1|principal:{evil}', 'principal:Zoë', '#looks-hashed', 'new\nline']) {
    const { bucket, leases } = redisKeys('p:', odd);
    assert.match(bucket, /^p:\{#[A-Za-z0-9_-]{43}\}:rate$/);
    assert.equal(leases, bucket.replace(/:rate$/, ':leases'));
  }
  assert.notEqual(redisKeys('p:', 'a'.repeat(300)).bucket, redisKeys('p:', 'a'.repeat(301)).bucket);
});

it('reads every part of a Redis URL, and redacts its password from any text', () => {
  const canary = 'CANARY-p@ss/w:rd';
  const url = `rediss://bridge:${encodeURIComponent(canary)}@redis.internal:6380/2`;
  const target = redisTarget(url);
  assert.deepEqual(target.options, { host: 'redis.internal', port: 6380, db: 2, username: 'bridge', password: canary, tls: { servername: 'redis.internal' } });
  assert.equal(target.where, 'redis.internal:6380');
  const text = target.redact(`failed: ${url} ${canary} ${encodeURIComponent(canary)}`);
  assert.ok(!text.includes('CANARY'), text);
  assert.deepEqual(redisTarget('redis://[::1]').options, { host: '::1', port: 6379, db: 0 });
  assert.deepEqual(redisTarget('/run/redis/redis.sock').options, { path: '/run/redis/redis.sock' });
});

it('a bad Redis URL is a configuration error that does not echo the URL', () => {
  for (const url of ['redis://:CANARY-secret@host:notaport', 'http://:CANARY-secret@host', 'redis://:CANARY-secret@host/db-name']) {
    assert.throws(
      () =>
        createLimitStore({ redis: { url, keyPrefix: 'p:', onUnavailable: 'allow', commandTimeoutMs: 250, connectTimeoutMs: 2000, leaseSeconds: 300 } }, hooks),
      (error) => error instanceof ConfigError && !error.message.includes('CANARY'),
    );
  }
});

it('the hooks count every failure, warn at most once per interval with how many failed, and log recovery once', () => {
  const lines: { level: string; fields: Record<string, unknown>; message: string }[] = [];
  const log = {
    warn: (fields: object, message: string) => lines.push({ level: 'warn', fields: fields as Record<string, unknown>, message }),
    info: (fields: object, message: string) => lines.push({ level: 'info', fields: fields as Record<string, unknown>, message }),
  };
  let count = 0;
  let now = 0;
  const h = limitStoreHooks(log, { inc: () => void (count += 1) }, { onUnavailable: 'refuse', now: () => now });
  const failure = Object.assign(new Error('Redis limit store at 127.0.0.1:1: connect ECONNREFUSED'), { code: 'unreachable' });
  for (let i = 0; i < 50; i++, now += 100) h.onUnavailable(failure);
  assert.equal(count, 50);
  assert.deepEqual(
    lines.map((l) => [l.level, l.fields.failures, l.fields.code]),
    [['warn', 1, 'unreachable']],
  );
  assert.match(lines[0]!.message, /refused/);
  now += 5_000;
  h.onUnavailable(failure);
  assert.deepEqual(lines[1]?.fields.failures, 50, 'the next warning counts those since the last one');
  h.onRecovered!();
  h.onRecovered!();
  assert.deepEqual(
    lines.slice(2).map((l) => [l.level, l.fields.failures]),
    [['info', 51]],
  );
  h.onUnavailable(failure);
  assert.equal(lines.at(-1)?.level, 'warn', 'a new outage warns at once');
});

it("readAnswer reads the limit script's {1}, {0, 1} and {0, 2, wait} only: a Redis answering garbage admits nothing", () => {
  assert.deepEqual(readAnswer([1]), { admitted: true });
  assert.deepEqual(readAnswer([0, 1]), { admitted: false, reason: 'too_many_in_flight' });
  assert.deepEqual(readAnswer([0, 2, 1500]), { admitted: false, reason: 'rate_limited', waitMs: 1500 });
  for (const garbage of [42, 'OK', ['1'], [1, '{x', []], [1, 0], ['wat'], [0, 2, -1], [0, 2, 1.5], [], null]) {
    assert.throws(() => readAnswer(garbage), /unexpected reply/, JSON.stringify(garbage));
  }
});
