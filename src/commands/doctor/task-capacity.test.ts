import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { taskCapacityNote } from './task-capacity.js';

const base = { enabled: true, maxTasks: 10_000, maxPerPrincipal: 100, principals: undefined, connections: [128] };

describe('doctor: task bounds against the upstream connections', () => {
  it('the defaults: 10,000 tasks, 128 connections, callers unbounded: the note names both and what to do', () => {
    const note = taskCapacityNote(base);
    assert.match(note ?? '', /up to 10000 tasks may run at once \(tasks\.maxTasks 10000\) but 128 OXP calls can \(upstream\.connections\)/);
    assert.match(note ?? '', /raise upstream\.connections or lower tasks\.maxTasks/);
  });

  it('static callers bound it: maxPerPrincipal × callers when lower than maxTasks', () => {
    assert.equal(taskCapacityNote({ ...base, principals: 1 }), undefined, '100 tasks fit 128 connections');
    assert.match(taskCapacityNote({ ...base, principals: 3 }) ?? '', /up to 300 tasks .*maxPerPrincipal 100 × 3 callers = 300\) but 128/);
  });

  it('the connections summed over the upstreams; nothing to say when they carry every task, or without tasks', () => {
    assert.equal(taskCapacityNote({ ...base, maxTasks: 8_192, connections: [4_096, 4_096] }), undefined);
    assert.match(taskCapacityNote({ ...base, connections: [4_096, 4_096] }) ?? '', /8192 OXP calls can \(upstream\.connections over 2 upstreams\)/);
    assert.equal(taskCapacityNote({ ...base, enabled: false }), undefined);
  });
});
