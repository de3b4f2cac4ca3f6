import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_POLL_MS, MAX_POLL_MS, MAX_TASK_ID_LENGTH, MIN_POLL_MS, isTerminal, pollDelayMs, readCreateTaskResult, readTask } from './mcp-task-polling.js';

const task = { taskId: '786512e2-9e0d-44bd-8f29-789f320fe840', status: 'working', createdAt: '2025-11-25T10:30:00Z', ttl: 60_000, pollInterval: 5_000 };

describe('the 2025-11-25 task wire, read from an untrusted server', () => {
  it('reads a task: id, status, status message and poll interval', () => {
    assert.deepEqual(readTask({ ...task, statusMessage: 'Gathering sources...' }), {
      taskId: task.taskId,
      status: 'working',
      statusMessage: 'Gathering sources...',
      pollInterval: 5_000,
    });
    for (const status of ['input_required', 'completed', 'failed', 'cancelled'])
      assert.equal((readTask({ ...task, status }) as { status: string }).status, status);
  });

  it('refuses a task whose id is missing, empty, too long or not printable, or whose status is unknown', () => {
    for (const taskId of [undefined, '', 42, 'x'.repeat(MAX_TASK_ID_LENGTH + 1), 'a b', 'a\nb', 'ü'])
      assert.match(String(readTask({ ...task, taskId })), /taskId is not a printable string/, JSON.stringify(taskId));
    assert.equal(typeof readTask({ ...task, taskId: 'x'.repeat(MAX_TASK_ID_LENGTH) }), 'object');
    assert.match(String(readTask({ ...task, status: 'done' })), /status "done" is not a task status/);
    assert.equal(readTask([task]), 'the task is not an object');
  });

  it('keeps a status message short and drops a poll interval that is not a number', () => {
    const read = readTask({ ...task, statusMessage: 'm'.repeat(10_000), pollInterval: 'soon' });
    assert.ok(typeof read === 'object');
    assert.equal(read.statusMessage!.length, 500);
    assert.equal(read.pollInterval, undefined);
  });

  it('reads the answer to a task-augmented tools/call: a task, a plain result from a server that ran it at once, or neither', () => {
    assert.deepEqual(readCreateTaskResult({ task }), { task: { taskId: task.taskId, status: 'working', pollInterval: 5_000 } });
    const plain = { content: [{ type: 'text', text: 'done' }] };
    assert.deepEqual(readCreateTaskResult(plain), { result: plain });
    assert.match((readCreateTaskResult({ task: { status: 'working' } }) as { problem: string }).problem, /CreateTaskResult is malformed: taskId/);
    assert.match((readCreateTaskResult({ taskId: 'flat' }) as { problem: string }).problem, /neither a CreateTaskResult nor a CallToolResult/);
  });

  it('tells terminal statuses', () => {
    assert.deepEqual((['working', 'input_required', 'completed', 'failed', 'cancelled'] as const).map(isTerminal), [false, false, true, true, true]);
  });

  it("honours the server's pollInterval within bounds, and polls every second when it suggests none", () => {
    assert.equal(pollDelayMs({ pollInterval: 1_500 }), 1_500);
    assert.equal(pollDelayMs({ pollInterval: 0 }), MIN_POLL_MS);
    assert.equal(pollDelayMs({ pollInterval: -5 }), MIN_POLL_MS);
    assert.equal(pollDelayMs({ pollInterval: 3_600_000 }), MAX_POLL_MS);
    assert.equal(pollDelayMs({ pollInterval: 250.6 }), 251);
    assert.equal(pollDelayMs({}), DEFAULT_POLL_MS);
  });
});
