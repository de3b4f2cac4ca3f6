/**
 * The Redis limit store against a real redis-server (test/helpers/redis-server.ts):
 * two store instances stand for two replicas sharing one Redis, and the server
 * is stopped, restarted and frozen mid-run.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { Counter, Registry } from 'prom-client';
import {
  createLimitStore,
  limitStoreHooks,
  type LimitSpec,
  type LimitStore,
  type LimitVerdict,
  type RedisStoreSettings,
} from '../../src/calls/limits/limit-store.js';
import { requireRedisServer, startRedis, type TestRedis } from '../helpers/redis-server.js';

const redisServer = requireRedisServer();

/** Records what the store tells its owner. */
function recorder() {
  const errors: unknown[] = [];
  let recoveries = 0;
  return {
    errors,
    recoveries: () => recoveries,
    hooks: { onUnavailable: (error: unknown) => void errors.push(error), onRecovered: () => void (recoveries += 1) },
  };
}

const passed = (verdicts: LimitVerdict[]) => verdicts.filter((v) => v.ok && !v.degraded).length;

describe('the Redis limit store', { skip: redisServer.why ?? false }, () => {
  let redis: TestRedis;
  let inspector: Redis;
  const stores: LimitStore[] = [];
  let prefixes = 0;

  /** A store on the test's Redis; `prefix` shares counters between the "replicas" of one test only. */
  async function open(prefix: string, settings: Partial<RedisStoreSettings> = {}, hooks = recorder().hooks): Promise<LimitStore> {
    const store = createLimitStore(
      { redis: { url: redis.url, keyPrefix: prefix, onUnavailable: 'allow', commandTimeoutMs: 250, connectTimeoutMs: 2_000, leaseSeconds: 300, ...settings } },
      hooks,
    );
    stores.push(store);
    assert.equal(store.kind, 'redis');
    assert.equal(await store.whenReady(), true, 'connects');
    return store;
  }
  const freshPrefix = () => `t${++prefixes}:`;

  /** Polls until `acquire` is counted by Redis again (not degraded), within `ms`. */
  async function untilCounted(store: LimitStore, spec: LimitSpec, ms = 15_000): Promise<LimitVerdict> {
    for (const until = Date.now() + ms; Date.now() < until; await sleep(100)) {
      const verdict = await store.acquire('probe', spec);
      if (verdict.ok ? !verdict.degraded : verdict.reason !== 'store_unavailable') return verdict;
    }
    assert.fail('the store did not count again after Redis came back');
  }

  before(async () => {
    redis = await startRedis();
    inspector = new Redis(redis.port, '127.0.0.1', { lazyConnect: true, enableOfflineQueue: true });
    // Redis is stopped on purpose in some cases: the inspector's reconnect errors are expected.
    inspector.on('error', () => {});
  });

  after(async () => {
    await Promise.all(stores.map((s) => s.close()));
    inspector.disconnect();
    await redis.close();
  });

  it('two replicas enforce one rate limit: exactly the burst of 20 concurrent acquires passes, across both', async () => {
    const prefix = freshPrefix();
    const [a, b] = [await open(prefix), await open(prefix)];
    const spec = { requestsPerMinute: 60, burst: 5, maxInFlight: 0 };
    const verdicts = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).acquire('rule:1|principal:alice', spec)));
    assert.equal(passed(verdicts), 5, inspect(verdicts));
    for (const v of verdicts) if (!v.ok) assert.ok(v.reason === 'rate_limited' && v.retryAfterSeconds === 1, inspect(v));
    assert.ok((await a.acquire('rule:1|principal:bob', spec)).ok, 'another key has its own bucket');
    const keys = await inspector.keys(`${prefix}*`);
    assert.deepEqual(keys.sort(), [`${prefix}{rule:1|principal:alice}:rate`, `${prefix}{rule:1|principal:bob}:rate`]);
    for (const key of keys) {
      const ttl = await inspector.pttl(key);
      assert.ok(ttl > 0 && ttl <= 6_000, `${key} vanishes once its bucket is full again (PTTL ${ttl})`);
    }
  });

  it('two replicas enforce one in-flight cap; a release gives its slot back, once', async () => {
    const prefix = freshPrefix();
    const [a, b] = [await open(prefix), await open(prefix)];
    const spec = { requestsPerMinute: 0, burst: 0, maxInFlight: 3 };
    const verdicts = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).acquire('k', spec)));
    assert.equal(passed(verdicts), 3);
    for (const v of verdicts) if (!v.ok) assert.equal(v.reason, 'too_many_in_flight');
    const held = verdicts.find((v) => v.ok)!;
    assert.ok(held.ok);
    held.release();
    held.release();
    await inspector.ping(); // the release is sent without waiting: this round trip lets it land first
    assert.ok((await b.acquire('k', spec)).ok, 'the released slot is back, on the other replica too');
    assert.equal((await a.acquire('k', spec)).ok, false, 'and only one slot: the second release gave nothing');
  });

  it('the lease of a replica that died mid-call expires after leaseSeconds; until then its slot stays taken', async () => {
    const prefix = freshPrefix();
    const spec = { requestsPerMinute: 0, burst: 0, maxInFlight: 1 };
    const dying = await open(prefix, { leaseSeconds: 2 });
    const survivor = await open(prefix, { leaseSeconds: 2 });
    const started = Date.now();
    assert.ok((await dying.acquire('k', spec)).ok);
    await dying.close(); // gone without a release
    assert.equal((await survivor.acquire('k', spec)).ok, false, 'the lease still holds the slot');
    let verdict: LimitVerdict;
    do {
      await sleep(200);
      verdict = await survivor.acquire('k', spec);
    } while (!verdict.ok && Date.now() - started < 10_000);
    assert.ok(verdict.ok, 'the slot came back');
    assert.ok(Date.now() - started >= 1_900, `not before the lease expired (${Date.now() - started} ms)`);
    const ttl = await inspector.pttl(`${prefix}{k}:leases`);
    assert.ok(ttl > 0 && ttl <= 3_000, `the lease set vanishes after its last lease (PTTL ${ttl})`);
  });

  it('long keys are hashed to a bounded length; a flushed script cache is reloaded (EVALSHA, then EVAL)', async () => {
    const prefix = freshPrefix();
    const store = await open(prefix);
    const spec = { requestsPerMinute: 60, burst: 2, maxInFlight: 0 };
    const key = `rule:1|principal:${'x'.repeat(5_000)}`;
    assert.ok((await store.acquire(key, spec)).ok);
    await inspector.script('FLUSH');
    assert.ok((await store.acquire(key, spec)).ok);
    assert.equal((await store.acquire(key, spec)).ok, false, 'the same bucket, counted across the flush');
    const [stored] = await inspector.keys(`${prefix}*`);
    assert.ok(stored && stored.length < 80, stored);
  });

  it("Redis stopped mid-run with 'allow': calls pass degraded at once, the hooks hear it, and counting resumes when Redis is back", async () => {
    const seen = recorder();
    const store = await open(freshPrefix(), { onUnavailable: 'allow' }, seen.hooks);
    const spec = { requestsPerMinute: 600, burst: 100, maxInFlight: 10 };
    const before = await store.acquire('k', spec);
    assert.ok(before.ok && !before.degraded);
    before.release();
    await redis.stop();
    try {
      for (let i = 0; i < 5; i++) {
        const started = Date.now();
        const verdict = await store.acquire('k', spec);
        assert.ok(verdict.ok && verdict.degraded === true, inspect(verdict));
        verdict.release();
        assert.ok(Date.now() - started < 600, `answered without waiting for Redis (${Date.now() - started} ms)`);
      }
      assert.equal(seen.errors.length, 5);
      assert.ok(
        seen.errors.every((e) => e instanceof Error && e.name === 'LimitStoreError'),
        inspect(seen.errors),
      );
      assert.equal(seen.recoveries(), 0);
    } finally {
      await redis.start();
    }
    const after = await untilCounted(store, spec);
    assert.ok(after.ok && !after.degraded);
    assert.equal(seen.recoveries(), 1);
  });

  it("'share': replicas counted in Redis; Redis frozen, then killed: each replica enforces its share, remembering what Redis admitted", async () => {
    const prefix = freshPrefix();
    const a = await open(prefix, { onUnavailable: 'share' });
    const b = await open(prefix, { onUnavailable: 'share' });
    // Each announces itself when it connects and every 5 s: within one beat both count two replicas.
    await sleep(5_500);
    assert.equal(await inspector.zcard(`${prefix}replicas`), 2, 'both replicas announced');
    const spec = { requestsPerMinute: 1, burst: 4, maxInFlight: 0 };
    assert.ok((await a.acquire('k', spec)).ok, "counted in Redis, and charged to A's share (2 of 4)");
    const tally = async (store: LimitStore, n: number) => {
      const verdicts: LimitVerdict[] = [];
      for (let i = 0; i < n; i++) verdicts.push(await store.acquire('k', spec));
      assert.ok(
        verdicts.every((v) => v.ok || v.reason === 'rate_limited'),
        inspect(verdicts),
      );
      return verdicts.filter((v) => v.ok).length;
    };
    redis.freeze();
    let thawed = false;
    try {
      assert.equal(await tally(a, 3), 1, 'A: its share of 2, one already spent through Redis');
      assert.equal(await tally(b, 3), 2, 'B: its share of 2');
      redis.thaw();
      thawed = true;
    } finally {
      if (!thawed) redis.thaw();
    }
    await redis.stop();
    try {
      const c = { requestsPerMinute: 1, burst: 4, maxInFlight: 0 };
      let passed = 0;
      for (const store of [a, b, a, b, a, b]) if ((await store.acquire('fresh', c)).ok) passed++;
      assert.equal(passed, 4, 'Redis gone: two replicas, 2 each, the limit of 4 holds');
    } finally {
      await redis.start();
    }
  });

  it("Redis stopped with 'refuse': calls are refused with store_unavailable and a retry within 1-5 s", async () => {
    const seen = recorder();
    const store = await open(freshPrefix(), { onUnavailable: 'refuse' }, seen.hooks);
    const spec = { requestsPerMinute: 600, burst: 100, maxInFlight: 0 };
    assert.ok((await store.acquire('k', spec)).ok);
    await redis.stop();
    try {
      const verdict = await store.acquire('k', spec);
      assert.ok(!verdict.ok && verdict.reason === 'store_unavailable', inspect(verdict));
      assert.ok(verdict.retryAfterSeconds >= 1 && verdict.retryAfterSeconds <= 5, inspect(verdict));
      assert.equal(seen.errors.length, 1);
      assert.ok((await store.acquire('k', { requestsPerMinute: 0, burst: 0, maxInFlight: 0 })).ok, 'what limits nothing never asks Redis');
    } finally {
      await redis.start();
    }
    assert.ok((await untilCounted(store, spec)).ok);
  });

  it('a frozen Redis holds no acquire longer than the command timeout, and the lease of a timed-out acquire does not stay', async () => {
    const prefix = freshPrefix();
    const seen = recorder();
    const store = await open(prefix, { commandTimeoutMs: 300 }, seen.hooks);
    const spec = { requestsPerMinute: 0, burst: 0, maxInFlight: 5 };
    assert.ok((await store.acquire('warm-up', spec)).ok);
    redis.freeze();
    let thawed = false;
    try {
      let started = Date.now();
      const verdict = await store.acquire('k', spec);
      const waited = Date.now() - started;
      assert.ok(verdict.ok && verdict.degraded, inspect(verdict));
      assert.ok(waited >= 250 && waited < 300 + 400, `gave up at the command timeout (${waited} ms)`);
      assert.equal((seen.errors[0] as { code?: string }).code, 'timeout');
      started = Date.now();
      assert.ok((await store.acquire('k', spec)).ok);
      assert.ok(Date.now() - started < 100, 'right after a timeout, the store does not wait on Redis again');
      redis.thaw();
      thawed = true;
    } finally {
      if (!thawed) redis.thaw();
    }
    await sleep(1_100);
    assert.ok((await untilCounted(store, spec)).ok);
    assert.equal(await inspector.zcard(`${prefix}{k}:leases`), 0, 'the script ran when Redis woke, and the removal sent after it undid its lease');
  });

  it('Redis down when the store starts: acquires answer at once, whenReady() waits for Redis to come up', async () => {
    await redis.stop();
    const seen = recorder();
    const store = createLimitStore(
      { redis: { url: redis.url, keyPrefix: freshPrefix(), onUnavailable: 'refuse', commandTimeoutMs: 1_000, connectTimeoutMs: 2_000, leaseSeconds: 300 } },
      seen.hooks,
    );
    stores.push(store);
    const spec = { requestsPerMinute: 60, burst: 1, maxInFlight: 0 };
    try {
      for (let i = 0; i < 3; i++) {
        const started = Date.now();
        const verdict = await store.acquire('k', spec);
        assert.ok(!verdict.ok && verdict.reason === 'store_unavailable', inspect(verdict));
        assert.ok(Date.now() - started < 500, `a refused connection is not waited for (${Date.now() - started} ms)`);
      }
      assert.deepEqual(
        seen.errors.map((e) => (e as { code?: string }).code),
        ['unreachable', 'unreachable', 'unreachable'],
      );
    } finally {
      const ready = store.whenReady(15_000);
      await sleep(300);
      await redis.start();
      assert.equal(await ready, true, 'whenReady() waited through the failed attempts');
    }
    assert.ok((await store.acquire('k', spec)).ok);
    assert.equal((await store.acquire('k', spec)).ok, false, 'counted');
  });

  it('close() ends the connection promptly, even while Redis is down', async () => {
    const store = await open(freshPrefix());
    await redis.stop();
    try {
      const started = Date.now();
      await store.close();
      assert.ok(Date.now() - started < 1_000);
      const verdict = await store.acquire('k', { requestsPerMinute: 1, burst: 1, maxInFlight: 0 });
      assert.ok(verdict.ok && verdict.degraded, 'a closed store counts nothing');
    } finally {
      await redis.start();
    }
  });
});

describe('the Redis URL password', { skip: redisServer.why ?? false }, () => {
  const password = 'right/pass:w@rd-0123456789';
  const canary = 'CANARY-7f3a9-not-the-password';
  let redis: TestRedis;
  const stores: LimitStore[] = [];

  const settings = (url: string, onUnavailable: 'allow' | 'refuse') =>
    ({ redis: { url, keyPrefix: 'pw:', onUnavailable, commandTimeoutMs: 250, connectTimeoutMs: 1_000, leaseSeconds: 300 } }) as const;

  before(async () => {
    redis = await startRedis({ password });
  });

  after(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await redis.close();
  });

  it('an encoded password in the URL authenticates', async () => {
    const store = createLimitStore(settings(`redis://:${encodeURIComponent(password)}@127.0.0.1:${redis.port}`, 'refuse'), recorder().hooks);
    stores.push(store);
    assert.equal(await store.whenReady(), true);
    const verdict = await store.acquire('k', { requestsPerMinute: 60, burst: 1, maxInFlight: 0 });
    assert.ok(verdict.ok && !verdict.degraded, inspect(verdict));
  });

  it('never appears in what the store reports, its log lines or its refusals (wrong password, unreachable server)', async () => {
    const lines: string[] = [];
    const log = pino({ level: 'trace' }, { write: (line: string) => void lines.push(line) });
    const registry = new Registry();
    const failures = new Counter({
      name: 'mcp_oxp_bridge_limit_store_failures_total',
      help: 'Acquires that could not reach the limit store.',
      registers: [registry],
    });
    const closed = await startRedis();
    const unreachable = closed.port;
    await closed.close();
    for (const [url, mode] of [
      [`redis://:${canary}@127.0.0.1:${redis.port}`, 'allow'],
      [`redis://default:${encodeURIComponent(canary)}@127.0.0.1:${redis.port}/0`, 'refuse'],
      [`redis://:${canary}@127.0.0.1:${unreachable}`, 'refuse'],
    ] as const) {
      const seen = recorder();
      const hooks = limitStoreHooks(log, failures, { onUnavailable: mode });
      const store = createLimitStore(settings(url, mode), { onUnavailable: (e) => (seen.hooks.onUnavailable(e), hooks.onUnavailable(e)) });
      stores.push(store);
      assert.equal(await store.whenReady(500), false, url);
      const verdict = await store.acquire('k', { requestsPerMinute: 60, burst: 1, maxInFlight: 1 });
      assert.equal(verdict.ok ? 'allow' : verdict.reason === 'store_unavailable' && 'refuse', mode, inspect(verdict));
      assert.ok(seen.errors.length >= 1);
      const told = [inspect(verdict), ...seen.errors.flatMap((e) => [inspect(e), JSON.stringify(e), String(e)]), ...lines].join('\n');
      assert.ok(!told.includes('CANARY'), told);
      assert.match(told, /Redis limit store at 127\.0\.0\.1:\d+/, 'the errors still say which Redis failed');
    }
    assert.equal((await failures.get()).values[0]?.value, 3);
    assert.equal(lines.length, 3, 'one warning per store (each its own hooks)');
  });
});
