import { it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { newTaskId } from './ids.js';
import { TaskLifecycle, TaskStopped, type TaskEnd } from './lifecycle.js';
import { MemoryTaskStore } from './memory-store.js';
import type { TaskStatus } from './store.js';

function setup(maxResultBytes = 10_000) {
  const store = new MemoryTaskStore({ maxPerOwner: 10, maxTotal: 100 });
  const statuses: TaskStatus[] = [];
  const lifecycle = new TaskLifecycle(store, { leaseMs: 300, maxResultBytes }, { onStatus: (s) => statuses.push(s) });
  const make = async () => {
    const created = await lifecycle.create({ taskId: newTaskId(), owner: 'alice', ttlMs: 60_000, pollIntervalMs: 100, work: {} });
    assert.ok(created.ok);
    return created.record;
  };
  return { store, lifecycle, statuses, make };
}

const done = (text: string): TaskEnd => ({ status: 'completed', outcome: { kind: 'result', result: { content: [{ type: 'text', text }] } } });

it('drives a task to its end, renewing the lease meanwhile (a long task is never claimed as lapsed)', async () => {
  const { store, lifecycle, statuses, make } = setup();
  const task = await make();
  const { taskId } = task;
  const final = await lifecycle.drive(task, new AbortController(), async () => {
    await sleep(700);
    assert.deepEqual(await store.claimLapsed('other', 1000, 10), [], 'renewed: not lapsed');
    return done('ok');
  });
  assert.equal(final?.status, 'completed');
  assert.deepEqual((await store.get(taskId, 'alice'))?.outcome, done('ok').outcome);
  assert.deepEqual(statuses, ['working', 'completed']);
  assert.equal(lifecycle.active, 0);
});

it('a cancel made through the store aborts the work; the task stays cancelled', async () => {
  const { store, lifecycle, statuses, make } = setup();
  const task = await make();
  const { taskId } = task;
  let reason: unknown;
  const driven = lifecycle.drive(
    task,
    new AbortController(),
    (control) =>
      new Promise<TaskEnd>((_, reject) =>
        control.signal.addEventListener('abort', () => {
          reason = control.signal.reason;
          reject(control.signal.reason as Error);
        }),
      ),
  );
  await sleep(20);
  await store.cancel(taskId, 'alice', 'stop');
  const final = await driven;
  assert.ok(reason instanceof TaskStopped && reason.reason === 'cancelled');
  assert.equal(final?.status, 'cancelled');
  assert.ok(statuses.includes('cancelled'));
});

it('an input round: input_required with the requests, then working again once every key is answered', async () => {
  const { store, lifecycle, make } = setup();
  const task = await make();
  const { taskId } = task;
  const driven = lifecycle.drive(task, new AbortController(), async (control) => {
    const answers = await control.askInput({ a: { method: 'elicitation/create' }, b: {} }, 'authorize');
    return done(JSON.stringify(answers));
  });
  await sleep(20);
  const waiting = await store.get(taskId, 'alice');
  assert.equal(waiting?.status, 'input_required');
  assert.equal(waiting?.statusMessage, 'authorize');
  await store.respond(taskId, 'alice', { a: { action: 'accept' } });
  await sleep(20);
  assert.equal((await store.get(taskId, 'alice'))?.status, 'input_required', 'one key still unanswered');
  await store.respond(taskId, 'alice', { b: { action: 'decline' } });
  const final = await driven;
  assert.equal(final?.status, 'completed');
  assert.deepEqual(final?.outcome, done(JSON.stringify({ a: { action: 'accept' }, b: { action: 'decline' } })).outcome);
});

it('a result over maxResultBytes ends the task failed, saying so; a throwing work ends it failed too', async () => {
  const { lifecycle, make } = setup(100);
  const big = await lifecycle.drive(await make(), new AbortController(), async () => done('x'.repeat(200)));
  assert.equal(big?.status, 'failed');
  assert.match(big?.statusMessage ?? '', /larger than the 100 bytes a task may keep \(tasks\.maxResultBytes\)/);
  assert.equal(big?.outcome?.kind, 'error');
  const broken = await lifecycle.drive(await make(), new AbortController(), async () => {
    throw new Error('bug');
  });
  assert.equal(broken?.status, 'failed');
});

it('shutdown stops the work; with the memory store the task ends failed (nobody else will finish it)', async () => {
  const { lifecycle, make } = setup();
  const task = await make();
  const driven = lifecycle.drive(
    task,
    new AbortController(),
    (control) => new Promise<TaskEnd>((_, reject) => control.signal.addEventListener('abort', () => reject(new Error('aborted')))),
  );
  await sleep(10);
  lifecycle.stopAll();
  const final = await driven;
  assert.equal(final?.status, 'failed');
  assert.match(final?.statusMessage ?? '', /shut down/);
});

it('a task taken over more than maxRedrives times is given up: ended failed, saying so, its work never run again', async () => {
  const store = new MemoryTaskStore({ maxPerOwner: 10, maxTotal: 100 });
  const gaveUp: string[] = [];
  const resumed: string[] = [];
  const lifecycle = new TaskLifecycle(store, { leaseMs: 300, maxResultBytes: 10_000, maxRedrives: 0 }, { onGiveUp: (r) => gaveUp.push(r.taskId) });
  const created = await store.create({ taskId: newTaskId(), owner: 'alice', ttlMs: 60_000, pollIntervalMs: 100, work: {} }, 'a-replica-that-died', 50);
  assert.ok(created.ok);
  const stop = lifecycle.redriveLapsed(50, (record) => (resumed.push(record.taskId), async () => done('ran again')));
  try {
    for (let i = 0; i < 100 && (await store.get(created.record.taskId, 'alice'))?.status !== 'failed'; i++) await sleep(20);
  } finally {
    stop();
  }
  const record = await store.get(created.record.taskId, 'alice');
  assert.equal(record?.status, 'failed');
  assert.match(record?.statusMessage ?? '', /given up after 1 take-over \(more than tasks\.maxRedrives\)/);
  assert.deepEqual(gaveUp, [created.record.taskId], 'told once');
  assert.deepEqual(resumed, [], 'its work was not run again');
});
