import { it } from 'node:test';
import assert from 'node:assert/strict';
import { newTaskId } from '../../calls/tasks/ids.js';
import { MemoryTaskStore } from '../../calls/tasks/memory-store.js';
import { TaskStoreError } from '../../calls/tasks/redis-record.js';
import type { TaskRecord } from '../../calls/tasks/store.js';
import { TaskQueries } from './task-queries.js';

/** A store whose reads fail from the `failFrom`-th on, as Redis answering garbage does (held-locally.ts lets that through). */
class FailingReads extends MemoryTaskStore {
  reads = 0;
  constructor(private readonly failFrom: number) {
    super({ maxPerOwner: 10, maxTotal: 10 });
  }
  override async get(taskId: string, owner: string): Promise<TaskRecord | undefined> {
    if (++this.reads >= this.failFrom) throw new TaskStoreError('garbage', 'The task store answered something unreadable (test).');
    return super.get(taskId, owner);
  }
}

for (const method of ['awaitEnd', 'follow'] as const) {
  it(`${method}: the store failing the read after the watch began is not left unhandled; the task's end still comes`, async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const store = new FailingReads(2);
    try {
      const taskId = newTaskId();
      const made = await store.create({ taskId, owner: 'o', ttlMs: 60_000, pollIntervalMs: 500, work: {} }, 'r', 60_000);
      assert.ok(made.ok);
      const queries = new TaskQueries(store);
      const signal = new AbortController().signal;
      const seen: string[] = [];
      const ended =
        method === 'awaitEnd'
          ? queries.awaitEnd(taskId, 'o', signal).then((reply) => ('result' in reply ? reply.result.status : 'error'))
          : queries.follow(made.record, 'o', signal, (record) => seen.push(record.status)).then(() => seen.at(-1));
      await new Promise((resolve) => setTimeout(resolve, 20));
      await store.update(taskId, { status: 'completed', outcome: { kind: 'result', result: { content: [] } } });
      assert.equal(await ended, 'completed');
      await new Promise((resolve) => setImmediate(resolve));
      assert.ok(store.reads >= (method === 'awaitEnd' ? 2 : 1), 'the read after the watch was made');
      assert.deepEqual(unhandled.map(String), []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await store.close();
    }
  });
}
