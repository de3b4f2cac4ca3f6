import { it } from 'node:test';
import assert from 'node:assert/strict';
import { taskStoreContract } from '../../../test/helpers/task-store-contract.js';
import { MemoryTaskStore } from './memory-store.js';
import { newTaskId } from './ids.js';

taskStoreContract('memory', (bounds) => new MemoryTaskStore(bounds));

it('memory: expiry follows the injected clock, and the sweep wakes watchers of expired tasks', async () => {
  let now = 1_000;
  const store = new MemoryTaskStore({ maxPerOwner: 10, maxTotal: 10 }, () => now);
  const taskId = newTaskId();
  const made = await store.create({ taskId, owner: 'o', ttlMs: 1000, pollIntervalMs: 500, work: {} }, 'r', 100);
  assert.ok(made.ok && made.record.createdAt === 1_000);
  const woken: unknown[] = [];
  store.watch(taskId, (r) => woken.push(r));
  now = 1_999;
  store.sweep();
  assert.ok(await store.get(taskId, 'o'));
  now = 2_000;
  store.sweep();
  await Promise.resolve();
  assert.deepEqual(woken, [undefined]);
  assert.equal(await store.count(), 0);
  await store.close();
});
