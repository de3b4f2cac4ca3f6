/**
 * A refusal is final, and a Redis pause costs no running task (issue 37; docs/production.md, "When Redis or a
 * replica fails"), against a real redis-server: frozen with SIGSTOP and resumed, and behind a stand-in that delays
 * its bytes past the store's command timeout (test/helpers/delaying-proxy.ts). Two stores on one Redis stand for two
 * replicas; their lifecycles renew and take over leases as the forward command's do.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { newTaskId } from '../../src/calls/tasks/ids.js';
import { HeldLocallyTaskStore } from '../../src/calls/tasks/held-locally.js';
import { TaskLifecycle, TaskStopped, type TaskEnd } from '../../src/calls/tasks/lifecycle.js';
import { RedisTaskStore, type ResumeGrace } from '../../src/calls/tasks/redis-store.js';
import { CREATE_LUA } from '../../src/calls/tasks/redis-scripts.js';
import type { NewTask, TaskRecord } from '../../src/calls/tasks/store.js';
import { startDelayingProxy, type DelayingProxy } from '../helpers/delaying-proxy.js';
import { requireRedisServer, startRedis, type TestRedis } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/task-store-contract.js';

const redisServer = requireRedisServer();
const bounds = { maxPerOwner: 100, maxTotal: 1000 };
const task = (extra: Partial<NewTask> = {}): NewTask => ({
  taskId: newTaskId(),
  owner: 'alice',
  ttlMs: 60_000,
  pollIntervalMs: 500,
  work: { callId: 'c' },
  ...extra,
});
const done: TaskEnd = { status: 'completed', outcome: { kind: 'result', result: { content: [] } } };

describe('the Redis task store under faults', { skip: redisServer.why ?? false }, () => {
  let redis: TestRedis;
  let inspector: Redis;
  let prefixes = 0;
  const closing: (() => Promise<unknown>)[] = [];

  function store(options: { port?: number; prefix: string; commandTimeoutMs?: number; grace?: ResumeGrace }): RedisTaskStore {
    const url = `redis://127.0.0.1:${options.port ?? redis.port}`;
    const settings = {
      url,
      keyPrefix: options.prefix,
      onUnavailable: 'share' as const,
      commandTimeoutMs: options.commandTimeoutMs ?? 1_000,
      connectTimeoutMs: 2_000,
      leaseSeconds: 300,
    };
    const made = new RedisTaskStore(settings, bounds, options.grace);
    closing.push(() => made.close());
    return made;
  }

  /** A store once connected, as a replica is before it serves. */
  async function ready(options: Parameters<typeof store>[0]): Promise<RedisTaskStore> {
    const made = store(options);
    assert.equal(await made.whenReady(), true);
    return made;
  }

  /** Whether Redis holds anything of the task: its hash, or a member of any index. */
  async function traces(prefix: string, taskId: string): Promise<string[]> {
    const found: string[] = [];
    if (await inspector.exists(`${prefix}task:${taskId}`)) found.push('hash');
    for (const key of await inspector.keys(`${prefix}tasks:*`)) {
      if ((await inspector.type(key)) === 'zset' && (await inspector.zscore(key, taskId)) !== null) found.push(key);
    }
    return found;
  }

  before(async () => {
    redis = await startRedis();
    inspector = new Redis(redis.port, '127.0.0.1', { enableOfflineQueue: true });
    inspector.on('error', () => {});
  });
  after(async () => {
    for (const close of closing.splice(0)) await close().catch(() => undefined);
    inspector.disconnect();
    await redis?.close();
  });

  it('Redis frozen while a creation is on its way: the creation is refused, and after Redis resumes the task does not exist', async () => {
    const prefix = `frozen${++prefixes}:`;
    const a = store({ prefix, commandTimeoutMs: 300 });
    assert.equal(await a.whenReady(), true);
    assert.ok((await a.create(task(), 'replica-a', 30_000)).ok, 'a first creation calibrates the clock');
    const refused = task();
    redis.freeze();
    try {
      await assert.rejects(a.create(refused, 'replica-a', 1_000), (e: Error & { code?: string }) => e.name === 'TaskStoreError' && e.code === 'unavailable');
      await sleep(1_500);
    } finally {
      redis.thaw();
    }
    await sleep(500);
    assert.deepEqual(await traces(prefix, refused.taskId), [], 'no trace of the refused task in Redis');
    assert.equal(await a.get(refused.taskId, 'alice'), undefined);
    const page = await a.list('alice', undefined, 100);
    assert.ok(page !== 'bad_cursor' && !page.tasks.some((t) => t.taskId === refused.taskId));
    assert.deepEqual(await a.claimLapsed('replica-b', 30_000, 10), [], 'nothing to take over, a lease later');
  });

  it("Redis's answers slower than the command timeout: a creation Redis carried out in time but answered late is removed before any replica takes it over", async () => {
    const prefix = `late-reply${++prefixes}:`;
    const proxy: DelayingProxy = await startDelayingProxy(redis.port);
    closing.push(() => proxy.close());
    const a = store({ port: proxy.port, prefix, commandTimeoutMs: 300 });
    const b = await ready({ prefix });
    assert.equal(await a.whenReady(), true);
    assert.ok((await a.create(task(), 'replica-a', 30_000)).ok);
    const refused = task();
    proxy.delays = { toServer: 0, toClient: 800 };
    await assert.rejects(a.create(refused, 'replica-a', 200), (e: Error & { code?: string }) => e.code === 'unavailable');
    let claimed: readonly TaskRecord[] = [];
    for (let i = 0; i < 10 && claimed.length === 0; i++) {
      await sleep(100);
      claimed = await b.claimLapsed('replica-b', 30_000, 10);
    }
    assert.deepEqual(claimed, [], 'never taken over (its lease of 200 ms lapsed meanwhile)');
    proxy.delays = { toServer: 0, toClient: 0 };
    await waitFor(async () => (await traces(prefix, refused.taskId)).length === 0, 5_000);
    assert.equal(await b.get(refused.taskId, 'alice'), undefined);
  });

  it('a creation that reaches Redis after its deadline is refused by the script itself, and nothing is written', async () => {
    const prefix = `deadline${++prefixes}:`;
    const id = newTaskId();
    const keys = [`${prefix}task:${id}`, `${prefix}tasks:owner:o`, `${prefix}tasks:owner:o:exp`, `${prefix}tasks:all`, `${prefix}tasks:leases`];
    const [seconds] = (await inspector.time()) as unknown as [string, string];
    const past = Number(seconds) * 1000 - 1_000;
    const reply = await inspector.eval(CREATE_LUA, 5, ...keys, id, 'o', '{}', 60_000, 30_000, 'replica-a', 10, 10, past, 1000, '');
    assert.equal((reply as unknown[])[0], 'late');
    assert.deepEqual(await traces(prefix, id), []);
    const inTime = await inspector.eval(
      CREATE_LUA,
      5,
      ...keys,
      id,
      'o',
      '{"status":"working","work":{}}',
      60_000,
      30_000,
      'replica-a',
      10,
      10,
      past + 60_000,
      1000,
      '',
    );
    assert.equal((inTime as unknown[])[0], 'ok', 'the same creation with a deadline ahead is made');
  });

  it('a Redis freeze longer than the lease: the replica still running its task keeps it, nobody re-drives it, and it ends once', async () => {
    const prefix = `pause${++prefixes}:`;
    const leaseMs = 1_200;
    const grace = { pauseMs: leaseMs / 2, graceMs: leaseMs };
    const a = new TaskLifecycle(new HeldLocallyTaskStore(await ready({ prefix, commandTimeoutMs: 300, grace })), { leaseMs, maxResultBytes: 10_000 });
    const b = new TaskLifecycle(new HeldLocallyTaskStore(await ready({ prefix, commandTimeoutMs: 300, grace })), { leaseMs, maxResultBytes: 10_000 });
    const resumed: string[] = [];
    const stopB = b.redriveLapsed(leaseMs / 3, (record) => (resumed.push(record.taskId), async () => done));
    closing.push(async () => stopB());
    const created = await a.create(task());
    assert.ok(created.ok);
    let stoppedBy: unknown;
    const driven = a.drive(created.record, new AbortController(), async (control) => {
      await sleep(2_500 + 2 * leaseMs, undefined, { signal: control.signal }).catch(() => (stoppedBy = control.signal.reason));
      return done;
    });
    await sleep(leaseMs / 2);
    redis.freeze();
    await sleep(2_500).finally(() => redis.thaw());
    const final = await driven;
    assert.equal(stoppedBy, undefined, `the runner was not stopped (${String(stoppedBy)})`);
    assert.deepEqual(resumed, [], 'no replica re-drove it');
    assert.equal(final?.status, 'completed');
    const record = await a.store.get(created.record.taskId, 'alice');
    assert.equal(record?.status, 'completed');
    assert.equal(record?.redrives, 0);
  });

  it('a runner that died: once its lease lapsed (and no pause), another replica re-drives it, once; the old runner, back, learns it lost it and writes no end', async () => {
    const prefix = `died${++prefixes}:`;
    const leaseMs = 600;
    const grace = { pauseMs: leaseMs / 2, graceMs: leaseMs };
    const a = await ready({ prefix, grace });
    const b = new TaskLifecycle(await ready({ prefix, grace }), { leaseMs, maxResultBytes: 10_000 });
    const resumed: string[] = [];
    const stopB = b.redriveLapsed(leaseMs / 3, (record) => (resumed.push(record.taskId), async () => (await sleep(300), done)));
    closing.push(async () => stopB());
    const made = await a.create(task(), 'replica-a', leaseMs);
    assert.ok(made.ok);
    await waitFor(() => resumed.length > 0, 10_000);
    await waitFor(async () => (await a.get(made.record.taskId, 'alice'))?.status === 'completed', 10_000);
    assert.deepEqual(resumed, [made.record.taskId]);
    assert.deepEqual(await a.update(made.record.taskId, done, 'replica-a'), {
      ok: false,
      reason: 'terminal',
      record: await a.get(made.record.taskId, 'alice'),
    });
    assert.equal((await a.get(made.record.taskId, 'alice'))?.redrives, 1);
  });

  it('a runner taken over while its work still ran: its work is stopped as taken over (not cancelled), and its end is not written over the re-drive', async () => {
    const prefix = `fenced${++prefixes}:`;
    const leaseMs = 600;
    const a = await ready({ prefix });
    const lost: string[] = [];
    const lifecycle = new TaskLifecycle(a, { leaseMs, maxResultBytes: 10_000, holder: 'replica-a' }, { onLeaseLost: (r) => lost.push(r.taskId) });
    const made = await lifecycle.create(task());
    assert.ok(made.ok);
    let reason: unknown;
    const driven = lifecycle.drive(made.record, new AbortController(), async (control) => {
      await sleep(30_000, undefined, { signal: control.signal }).catch(() => (reason = control.signal.reason));
      return done;
    });
    // Replica b takes the lease as a claim would after a lapse: the runner hears it through the store's watch.
    const b = await ready({ prefix });
    await inspector.hset(`${prefix}task:${made.record.taskId}`, 'until', 0);
    await inspector.zadd(`${prefix}tasks:leases`, 0, made.record.taskId);
    const [claimed] = await b.claimLapsed('replica-b', 30_000, 10);
    assert.equal(claimed?.taskId, made.record.taskId);
    await driven;
    assert.ok(reason instanceof TaskStopped && reason.reason === 'taken_over', String(reason));
    assert.deepEqual(lost, [made.record.taskId], 'one lost lease, told once');
    const record = await b.get(made.record.taskId, 'alice');
    assert.equal(record?.status, 'working', 'the re-drive owns its end');
    assert.equal(record?.lease?.holder, 'replica-b');
    assert.deepEqual(await a.update(made.record.taskId, done, 'replica-a'), { ok: false, reason: 'lost' });
  });

  it("the store's state: unavailable from the first round trip Redis does not answer, available again at the first it does, each change told once", async () => {
    const a = store({ prefix: `state${++prefixes}:`, commandTimeoutMs: 300 });
    assert.equal(await a.whenReady(), true);
    const changes: boolean[] = [];
    a.availability.onChange((state) => changes.push(state.available));
    await a.count();
    redis.freeze();
    try {
      await assert.rejects(a.count());
      await assert.rejects(a.count());
      assert.equal(a.availability.state.available, false);
      assert.match(a.availability.state.reason ?? '', /Redis task store at 127\.0\.0\.1:\d+/);
    } finally {
      redis.thaw();
    }
    await waitFor(() => a.availability.state.available, 5_000);
    assert.deepEqual(changes, [false, true]);
  });
});
