/**
 * The contract every task store keeps (src/calls/tasks/store.ts), as tests
 * any implementation runs against itself: the memory store in
 * src/calls/tasks/memory-store.test.ts, the Redis store against a real
 * redis-server. Real time with short ttls and leases, so a store keeping
 * time on its server is tested the same way.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { newTaskId } from '../../src/calls/tasks/ids.js';
import type { NewTask, TaskRecord, TaskStore, TaskStoreBounds } from '../../src/calls/tasks/store.js';

/** One task's lease renewed, as the lifecycle renews all of a replica's in one step. */
const renewOne = async (store: TaskStore, taskId: string, holder: string, leaseMs: number) => (await store.renew([taskId], holder, leaseMs))[0];

export type StoreFactory = (bounds: TaskStoreBounds) => Promise<TaskStore> | TaskStore;

const task = (owner: string, extra: Partial<NewTask> = {}): NewTask => ({
  taskId: newTaskId(),
  owner,
  ttlMs: 60_000,
  pollIntervalMs: 1000,
  work: { tool: 'slow', arguments: { n: 1 }, callId: 'c-1' },
  ...extra,
});

const roomy: TaskStoreBounds = { maxPerOwner: 100, maxTotal: 1000 };

async function withStore(make: StoreFactory, bounds: TaskStoreBounds, body: (store: TaskStore) => Promise<void>): Promise<void> {
  const store = await make(bounds);
  try {
    await body(store);
  } finally {
    await store.close();
  }
}

async function created(store: TaskStore, t: NewTask, holder = 'replica-a', leaseMs = 30_000): Promise<TaskRecord> {
  const outcome = await store.create(t, holder, leaseMs);
  assert.ok(outcome.ok, JSON.stringify(outcome));
  return outcome.record;
}

export function taskStoreContract(name: string, make: StoreFactory): void {
  it(`${name}: a created task is working, leased, readable by its owner only, and foreign reads look unknown`, () =>
    withStore(make, roomy, async (store) => {
      const t = task('alice');
      const record = await created(store, t);
      assert.equal(record.status, 'working');
      assert.equal(record.lease?.holder, 'replica-a');
      assert.equal(record.redrives, 0);
      assert.deepEqual(record.work, t.work);
      assert.equal((await store.get(t.taskId, 'alice'))?.taskId, t.taskId);
      assert.equal(await store.get(t.taskId, 'mallory'), undefined);
      assert.equal(await store.get(newTaskId(), 'alice'), undefined);
      assert.deepEqual(await store.cancel(t.taskId, 'mallory', 'no'), { ok: false, reason: 'unknown' });
      const page = await store.list('mallory', undefined, 10);
      assert.ok(page !== 'bad_cursor');
      assert.equal(page.tasks.length, 0);
    }));

  it(`${name}: updates follow the lifecycle; a terminal task never changes again`, () =>
    withStore(make, roomy, async (store) => {
      const t = task('alice');
      await created(store, t);
      const asked = await store.update(t.taskId, { status: 'input_required', inputRequests: { auth: { method: 'elicitation/create' } } });
      assert.ok(asked.ok && asked.record.status === 'input_required' && asked.record.inputRequests);
      const back = await store.update(t.taskId, { status: 'working', statusMessage: 'resumed' });
      assert.ok(back.ok && back.record.status === 'working' && back.record.inputRequests === undefined);
      assert.equal(back.record.statusMessage, 'resumed');
      assert.ok(back.record.revision > asked.record.revision);
      const done = await store.update(t.taskId, { status: 'completed', outcome: { kind: 'result', result: { content: [] } } });
      assert.ok(done.ok && done.record.status === 'completed' && done.record.lease === undefined);
      assert.deepEqual(done.record.outcome, { kind: 'result', result: { content: [] } });
      const late = await store.update(t.taskId, { status: 'failed', outcome: { kind: 'error', error: { code: -32603, message: 'x' } } });
      assert.ok(!late.ok && late.reason === 'terminal' && late.record.status === 'completed');
      const cancel = await store.cancel(t.taskId, 'alice', 'too late');
      assert.ok(!cancel.ok && cancel.reason === 'terminal');
      assert.deepEqual(await store.update(newTaskId(), { status: 'working' }), { ok: false, reason: 'unknown' });
    }));

  it(`${name}: a cancel ends the task at once and keeps it cancelled; the runner's heartbeat then says ended`, () =>
    withStore(make, roomy, async (store) => {
      const t = task('alice');
      await created(store, t);
      const cancelled = await store.cancel(t.taskId, 'alice', 'The task was cancelled by request.');
      assert.ok(cancelled.ok && cancelled.record.status === 'cancelled');
      assert.equal(cancelled.record.statusMessage, 'The task was cancelled by request.');
      const late = await store.update(t.taskId, { status: 'completed', outcome: { kind: 'result', result: {} } });
      assert.ok(!late.ok && late.reason === 'terminal' && late.record.status === 'cancelled');
      assert.equal(await renewOne(store, t.taskId, 'replica-a', 30_000), 'ended');
    }));

  it(`${name}: watchers are woken by changes made through the store, and by expiry`, () =>
    withStore(make, roomy, async (store) => {
      const t = task('alice', { ttlMs: 400 });
      await created(store, t);
      const seen: (string | undefined)[] = [];
      const stop = store.watch(t.taskId, (r) => seen.push(r?.status));
      await store.update(t.taskId, { status: 'input_required', inputRequests: {} });
      await store.cancel(t.taskId, 'alice', 'stop');
      await waitFor(() => seen.includes('cancelled'), 2000);
      assert.ok(seen.includes('input_required') || seen.includes('cancelled'));
      await waitFor(() => seen.includes(undefined), 10_000).catch(async () => {
        // A store may find expiry only when asked: a read must then wake the watcher.
        assert.equal(await store.get(t.taskId, 'alice'), undefined);
        await waitFor(() => seen.includes(undefined), 2000);
      });
      stop();
      assert.equal(await store.get(t.taskId, 'alice'), undefined, 'expired: unknown');
    }));

  it(`${name}: lists only the owner's tasks, newest first, paginated by an opaque cursor; a made-up cursor is refused`, () =>
    withStore(make, roomy, async (store) => {
      const ids: string[] = [];
      for (let i = 0; i < 7; i++) {
        ids.push((await created(store, task('alice'))).taskId);
        await created(store, task('bob'));
        await sleep(2);
      }
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages < 10; pages++) {
        const page = await store.list('alice', cursor, 3);
        assert.ok(page !== 'bad_cursor');
        assert.ok(page.tasks.length <= 3);
        for (const r of page.tasks) {
          assert.equal(r.owner, 'alice');
          seen.push(r.taskId);
        }
        cursor = page.nextCursor;
        if (!cursor) break;
      }
      assert.deepEqual(seen, [...ids].reverse());
      assert.equal(await store.list('alice', 'not-a-cursor!', 3), 'bad_cursor');
      assert.equal(await store.list('alice', '', 3), 'bad_cursor');
    }));

  it(`${name}: bounds per owner and in total, with when to try again; expired records free room`, () =>
    withStore(make, { maxPerOwner: 3, maxTotal: 5 }, async (store) => {
      for (let i = 0; i < 3; i++) await created(store, task('alice', { ttlMs: 500 }));
      const full = await store.create(task('alice'), 'replica-a', 30_000);
      assert.ok(!full.ok && full.reason === 'owner_full' && full.held === 3);
      assert.ok(full.retryAfterMs > 0 && full.retryAfterMs <= 500);
      await created(store, task('bob'));
      await created(store, task('carol'));
      const total = await store.create(task('dave'), 'replica-a', 30_000);
      assert.ok(!total.ok && total.reason === 'store_full');
      assert.equal(await store.count(), 5);
      assert.equal(await store.count('alice'), 3);
      await sleep(600);
      assert.equal(await store.count('alice'), 0);
      await created(store, task('alice'));
      await created(store, task('dave'));
    }));

  it(`${name}: a lapsed lease is claimed once, counting a re-drive; the old holder then learns it lost the task`, () =>
    withStore(make, roomy, async (store) => {
      const t = task('alice');
      await created(store, t, 'replica-a', 200);
      const held = task('alice');
      await created(store, held, 'replica-a', 30_000);
      assert.deepEqual(await store.claimLapsed('replica-b', 30_000, 10), []);
      await sleep(300);
      const [first, second] = await Promise.all([store.claimLapsed('replica-b', 30_000, 10), store.claimLapsed('replica-c', 30_000, 10)]);
      const claimed = [...first, ...second];
      assert.equal(claimed.length, 1, 'one task lapsed, claimed by exactly one replica');
      assert.equal(claimed[0]?.taskId, t.taskId);
      assert.equal(claimed[0]?.redrives, 1);
      assert.deepEqual(claimed[0]?.work, t.work);
      const winner = first.length ? 'replica-b' : 'replica-c';
      assert.equal(await renewOne(store, t.taskId, 'replica-a', 30_000), 'lost');
      assert.equal(await renewOne(store, t.taskId, winner, 30_000), 'held');
      assert.equal(await renewOne(store, held.taskId, 'replica-a', 30_000), 'held');
      assert.equal((await store.get(t.taskId, 'alice'))?.redrives, 1);
    }));

  it(`${name}: a heartbeat keeps the lease from lapsing`, () =>
    withStore(make, roomy, async (store) => {
      const t = task('alice');
      await created(store, t, 'replica-a', 300);
      for (let i = 0; i < 4; i++) {
        await sleep(150);
        assert.equal(await renewOne(store, t.taskId, 'replica-a', 300), 'held');
      }
      assert.deepEqual(await store.claimLapsed('replica-b', 30_000, 10), []);
    }));

  it(`${name}: answers to input requests are kept by key while the task waits for them, from its owner only, and cleared when it resumes`, () =>
    withStore(make, roomy, async (store) => {
      const t = task('alice');
      await created(store, t);
      const early = await store.respond(t.taskId, 'alice', { auth: { action: 'accept' } });
      assert.ok(early.ok && early.record.inputResponses === undefined, 'not waiting: ignored');
      await store.update(t.taskId, { status: 'input_required', inputRequests: { auth: { method: 'elicitation/create' }, other: {} } });
      let woken = 0;
      const stop = store.watch(t.taskId, () => woken++);
      assert.deepEqual(await store.respond(t.taskId, 'mallory', { auth: { action: 'accept' } }), { ok: false, reason: 'unknown' });
      const answered = await store.respond(t.taskId, 'alice', { auth: { action: 'accept' }, never: { action: 'accept' } });
      assert.ok(answered.ok);
      assert.deepEqual(answered.record.inputResponses, { auth: { action: 'accept' } });
      await waitFor(() => woken > 0, 2000);
      stop();
      const resumed = await store.update(t.taskId, { status: 'working' });
      assert.ok(resumed.ok && resumed.record.inputResponses === undefined && resumed.record.inputRequests === undefined);
      await store.cancel(t.taskId, 'alice', 'stop');
      const late = await store.respond(t.taskId, 'alice', { auth: { action: 'accept' } });
      assert.ok(!late.ok && late.reason === 'terminal');
    }));

  it(`${name}: a duplicate id is refused, never overwritten`, () =>
    withStore(make, roomy, async (store) => {
      const t = task('alice');
      await created(store, t);
      const again = await store.create({ ...t, owner: 'mallory' }, 'replica-a', 30_000);
      assert.ok(!again.ok && again.reason === 'duplicate_id');
      assert.equal((await store.get(t.taskId, 'alice'))?.owner, 'alice');
    }));
}

export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(10);
  }
}
