/**
 * The Redis task store against a real redis-server (test/helpers/redis-server.ts): the contract every task store
 * keeps (test/helpers/task-store-contract.ts), then what only a shared store does — two stores on one Redis stand for
 * two replicas: each reads, awaits and cancels the other's tasks; a lapsed lease is re-driven by the other; Redis
 * answering garbage is an error, never a record.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { newTaskId } from '../../src/calls/tasks/ids.js';
import { HeldLocallyTaskStore } from '../../src/calls/tasks/held-locally.js';
import { RedisTaskStore } from '../../src/calls/tasks/redis-store.js';
import type { TaskRecord, TaskStore, TaskStoreBounds } from '../../src/calls/tasks/store.js';
import { taskStoreContract, waitFor } from '../helpers/task-store-contract.js';
import { requireRedisServer, startRedis, type TestRedis } from '../helpers/redis-server.js';

/** One task's lease renewed, as the lifecycle renews all of a replica's in one step. */
const renewOne = async (store: TaskStore, taskId: string, holder: string, leaseMs: number) => (await store.renew([taskId], holder, leaseMs))[0];

const redisServer = requireRedisServer();

describe('the Redis task store', { skip: redisServer.why ?? false }, () => {
  let redis: TestRedis;
  let inspector: Redis;
  let prefixes = 0;
  const open: RedisTaskStore[] = [];

  async function store(bounds: TaskStoreBounds, prefix = `tasks${++prefixes}:`): Promise<RedisTaskStore> {
    const made = new RedisTaskStore(
      { url: redis.url, keyPrefix: prefix, onUnavailable: 'share', commandTimeoutMs: 1_000, connectTimeoutMs: 2_000, leaseSeconds: 300 },
      bounds,
    );
    open.push(made);
    assert.equal(await made.whenReady(), true);
    return made;
  }

  before(async () => {
    redis = await startRedis();
    inspector = new Redis(redis.port, '127.0.0.1', { lazyConnect: true, enableOfflineQueue: true });
    inspector.on('error', () => {});
  });
  after(async () => {
    await Promise.all(open.map((s) => s.close()));
    inspector.disconnect();
    await redis?.close();
  });

  taskStoreContract('redis', (bounds) => store(bounds));

  it('two replicas: a task created on one is read, awaited and cancelled on the other, and its runner hears the cancel', async () => {
    const prefix = `shared${++prefixes}:`;
    const a = await store({ maxPerOwner: 10, maxTotal: 100 }, prefix);
    const b = await store({ maxPerOwner: 10, maxTotal: 100 }, prefix);
    const taskId = newTaskId();
    const made = await a.create({ taskId, owner: 'alice', ttlMs: 60_000, pollIntervalMs: 500, work: { callId: 'c' } }, 'replica-a', 30_000);
    assert.ok(made.ok);
    assert.equal((await b.get(taskId, 'alice'))?.status, 'working');
    assert.equal(await b.get(taskId, 'mallory'), undefined);
    const heardByRunner: (string | undefined)[] = [];
    a.watch(taskId, (r) => heardByRunner.push(r?.status));
    const heardByWaiter: (string | undefined)[] = [];
    b.watch(taskId, (r) => heardByWaiter.push(r?.status));
    await new Promise((resolve) => setTimeout(resolve, 100)); // the subscriptions are made
    const cancelled = await b.cancel(taskId, 'alice', 'The task was cancelled by request.');
    assert.ok(cancelled.ok && cancelled.record.status === 'cancelled');
    await waitFor(() => heardByRunner.includes('cancelled') && heardByWaiter.includes('cancelled'), 5_000);
    assert.equal(await renewOne(a, taskId, 'replica-a', 30_000), 'ended');
  });

  it('a result with large numbers, floats and odd characters survives the round trip exactly', async () => {
    const s = await store({ maxPerOwner: 10, maxTotal: 100 });
    const taskId = newTaskId();
    assert.ok((await s.create({ taskId, owner: 'o', ttlMs: 60_000, pollIntervalMs: 500, work: {} }, 'r', 30_000)).ok);
    const result = {
      content: [{ type: 'text', text: '9007199254740993' }],
      structuredContent: { n: 1234567890123456, big: '12345678901234567890', f: 0.1 + 0.2, s: 'é\u2028' },
    };
    const done = await s.update(taskId, { status: 'completed', outcome: { kind: 'result', result } });
    assert.ok(done.ok);
    assert.deepEqual((await s.get(taskId, 'o'))?.outcome, { kind: 'result', result: JSON.parse(JSON.stringify(result)) as TaskRecord['work'] });
  });

  it('Redis answering garbage (a record rewritten by someone else) is an error naming the store, never a record', async () => {
    const prefix = `garbage${++prefixes}:`;
    const s = await store({ maxPerOwner: 10, maxTotal: 100 }, prefix);
    const taskId = newTaskId();
    assert.ok((await s.create({ taskId, owner: 'o', ttlMs: 60_000, pollIntervalMs: 500, work: {} }, 'r', 30_000)).ok);
    for (const [field, value] of [
      ['json', '{not json'],
      ['status', 'exploded'],
      ['rev', '-1'],
      ['json', JSON.stringify({ status: 'working', work: 'not an object' })],
    ] as const) {
      await inspector.hset(`${prefix}task:${taskId}`, field, value);
      await assert.rejects(s.get(taskId, 'o'), (e: Error) => e.name === 'TaskStoreError' && /unreadable/.test(e.message));
    }
    await inspector.del(`${prefix}task:${taskId}`);
    await inspector.set(`${prefix}task:${taskId}`, 'a string, not a hash');
    await assert.rejects(s.get(taskId, 'o'), (e: Error) => e.name === 'TaskStoreError');
  });

  it('Redis stopped: every operation fails at once with a TaskStoreError that names no credential; back, it answers again', async () => {
    const s = await store({ maxPerOwner: 10, maxTotal: 100 });
    await redis.stop();
    try {
      const started = Date.now();
      await assert.rejects(s.get(newTaskId(), 'o'), (e: Error) => e.name === 'TaskStoreError' && (e as { code?: string }).code === 'unavailable');
      assert.ok(Date.now() - started < 1_500);
    } finally {
      await redis.start();
    }
    assert.equal(await s.whenReady(15_000), true);
    assert.equal(await s.get(newTaskId(), 'o'), undefined);
  });

  it("a tasks/list page reads no task's body: a page of tasks with results of a megabyte each stays small; status and message are there", async () => {
    const s = await store({ maxPerOwner: 100, maxTotal: 1000 });
    const big = { kind: 'result' as const, result: { content: [{ type: 'text', text: 'r'.repeat(1024 * 1024) }] } };
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const taskId = newTaskId();
      ids.push(taskId);
      assert.ok((await s.create({ taskId, owner: 'alice', ttlMs: 60_000, pollIntervalMs: 250, work: { callId: 'c' } }, 'replica-a', 30_000)).ok);
      await s.update(taskId, { status: 'completed', statusMessage: `done ${i}`, outcome: big });
    }
    const before = Number(/total_net_output_bytes:(\d+)/.exec(await inspector.info('stats'))?.[1]);
    const page = await s.list('alice', undefined, 10);
    const after = Number(/total_net_output_bytes:(\d+)/.exec(await inspector.info('stats'))?.[1]);
    assert.ok(page !== 'bad_cursor');
    assert.deepEqual(
      page.tasks.map((t) => [t.taskId, t.status, t.statusMessage, t.pollIntervalMs, t.outcome]),
      [...ids].reverse().map((id, i) => [id, 'completed', `done ${4 - i}`, 250, undefined]),
    );
    assert.ok(after - before < 64 * 1024, `the page cost ${after - before} bytes out of Redis (5 MB of results not among them)`);
    assert.deepEqual((await s.get(ids[0]!, 'alice'))?.outcome, big, 'the task itself still has its result');
  });

  taskStoreContract('redis, held locally', async (bounds) => new HeldLocallyTaskStore(await store(bounds)));

  it('a creation its creator never confirmed (answered as refused, the creator dead before it removed it) is removed when its lease lapses, never taken over', async () => {
    const prefix = `unconfirmed${++prefixes}:`;
    const a = await store({ maxPerOwner: 10, maxTotal: 100 }, prefix);
    const b = await store({ maxPerOwner: 10, maxTotal: 100 }, prefix);
    const [refused, accepted] = [newTaskId(), newTaskId()];
    for (const taskId of [refused, accepted])
      assert.ok((await a.create({ taskId, owner: 'alice', ttlMs: 60_000, pollIntervalMs: 500, work: {} }, 'replica-a', 200)).ok);
    await inspector.connect().catch(() => undefined);
    for (let i = 0; (await inspector.hexists(`${prefix}task:${accepted}`, 'unconfirmed')) && i < 100; i++) await sleep(10);
    assert.equal(await inspector.hexists(`${prefix}task:${accepted}`, 'unconfirmed'), 0, 'a creation answered in time is confirmed at once');
    // What a creation refused after it was sent looks like in Redis: made, never confirmed.
    await inspector.hset(`${prefix}task:${refused}`, 'unconfirmed', '1');
    await sleep(300);
    const claimed = await b.claimLapsed('replica-b', 30_000, 10);
    assert.deepEqual(
      claimed.map((r) => r.taskId),
      [accepted],
      'the confirmed one is taken over; the other is not',
    );
    assert.equal(await b.get(refused, 'alice'), undefined, 'and it is gone');
    assert.equal(await b.count('alice'), 1);
    const page = await b.list('alice', undefined, 10);
    assert.ok(page !== 'bad_cursor');
    assert.deepEqual(
      page.tasks.map((r) => r.taskId),
      [accepted],
    );
  });

  it('Redis frozen (SIGSTOP): each replica answers from what it holds, writes wait, and both agree once Redis is back', async () => {
    const prefix = `outage${++prefixes}:`;
    const a = new HeldLocallyTaskStore(await store({ maxPerOwner: 10, maxTotal: 100 }, prefix));
    const b = new HeldLocallyTaskStore(await store({ maxPerOwner: 10, maxTotal: 100 }, prefix));
    const ran = newTaskId();
    const other = newTaskId();
    for (const taskId of [ran, other])
      assert.ok((await a.create({ taskId, owner: 'alice', ttlMs: 60_000, pollIntervalMs: 500, work: {} }, 'replica-a', 30_000)).ok);
    assert.equal((await b.get(ran, 'alice'))?.status, 'working', 'B has seen it');
    redis.freeze();
    let thawed = false;
    try {
      assert.equal(await renewOne(a, ran, 'replica-a', 30_000), 'held', 'the work goes on through the outage');
      const done = await a.update(ran, { status: 'completed', outcome: { kind: 'result', result: { content: [] } } });
      assert.ok(done.ok && done.record.status === 'completed', 'the completion is kept');
      assert.equal((await a.get(ran, 'alice'))?.status, 'completed', 'A answers what it holds');
      assert.equal((await b.get(ran, 'alice'))?.status, 'working', 'B answers what it last saw');
      assert.equal(await b.get(ran, 'mallory'), undefined, 'still only to its owner');
      const page = await a.list('alice', undefined, 10);
      assert.ok(page !== 'bad_cursor' && page.tasks.length === 2);
      await assert.rejects(a.create({ taskId: newTaskId(), owner: 'alice', ttlMs: 60_000, pollIntervalMs: 500, work: {} }, 'replica-a', 30_000), /task store/);
      for (const [replica, why] of [
        [b, 'B does not run it: a cancel answered now could lose to the end A writes once Redis is back'],
        [a, 'A runs it, but a cancel answered now could lose to a re-drive it cannot see (a partition)'],
      ] as const)
        await assert.rejects(replica.cancel(other, 'alice', 'stop'), (e: Error & { code?: string }) => e.code === 'unavailable', why);
      redis.thaw();
      thawed = true;
    } finally {
      if (!thawed) redis.thaw();
    }
    await a.flush();
    const seen = await b.get(ran, 'alice');
    assert.equal(seen?.status, 'completed', 'written once Redis answered');
    assert.deepEqual(seen?.outcome, { kind: 'result', result: { content: [] } });
    assert.equal((await b.get(other, 'alice'))?.status, 'working', 'no cancel was taken');
    const cancelled = await b.cancel(other, 'alice', 'stop');
    assert.ok(cancelled.ok && cancelled.record.status === 'cancelled', 'Redis back: the cancel is taken');
  });

  it('Redis killed: reads answer from what is held, heartbeats hold, no new task; back (empty), it answers from Redis again', async () => {
    const prefix = `killed${++prefixes}:`;
    const a = new HeldLocallyTaskStore(await store({ maxPerOwner: 10, maxTotal: 100 }, prefix));
    const taskId = newTaskId();
    assert.ok((await a.create({ taskId, owner: 'alice', ttlMs: 60_000, pollIntervalMs: 500, work: {} }, 'replica-a', 30_000)).ok);
    await redis.stop();
    try {
      assert.equal((await a.get(taskId, 'alice'))?.status, 'working');
      assert.equal(await renewOne(a, taskId, 'replica-a', 30_000), 'held');
      assert.deepEqual(await a.claimLapsed('replica-a', 30_000, 10), []);
      assert.equal(await a.count('alice'), 1);
    } finally {
      await redis.start();
    }
    assert.equal(await a.whenReady(15_000), true);
    assert.equal(await a.get(taskId, 'alice'), undefined, 'a Redis restarted without persistence holds no tasks: docs/production.md says so');
  });
});
