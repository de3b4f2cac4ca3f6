/**
 * The fault test's checks (fault-invariants.ts) on made-up records: each invariant holds on a clean record and
 * fails on one that breaks it, for that reason only; the excuses (a request lost with a SIGKILLed replica, a
 * refusal by a replica that was not running) are not violations.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CallSpan } from '../fixtures/oxp-fixture-server.js';
import type { ReplicaEvent } from './fault-deployment.js';
import { checkInvariants, INVARIANTS, type Evidence } from './fault-invariants.js';
import type { Exchange, TaskTrack } from './fault-load.js';

const T = 1_000_000;
const PORTS = [4001, 4002, 4003];
const up: ReplicaEvent[] = [0, 1, 2].map((replica) => ({ at: T - 10_000, replica, what: 'listening' }));

let seq = 0;
function exchange(kind: Exchange['kind'], over: Partial<Exchange> = {}): Exchange {
  const answer =
    kind === 'task' ? { id: seq + 1, result: { task: { taskId: `task-${seq + 1}`, status: 'working' } } } : { id: seq + 1, result: { content: [] } };
  return { seq: ++seq, kind, via: 'nginx', start: T, end: T + 100, status: 200, answers: [answer], upstream: '127.0.0.1:4001', ...over };
}

const refusedTask = (nonce: string) =>
  exchange('task', { nonce, answers: [{ id: 0, error: { code: -32000, message: 'no', data: { kind: 'task_store_unavailable' } } }] });

function span(callId: string, nonce: string, start: number, end: number, answered = true): CallSpan {
  return { callId, toolId: 'Fault.Work', input: { nonce }, start, end, answered };
}

function task(over: Partial<TaskTrack> = {}): TaskTrack {
  return {
    taskId: 't1',
    nonce: 'n-task',
    createdAt: T,
    seen: [
      { at: T, status: 'working' },
      { at: T + 5_000, status: 'completed' },
    ],
    resultText: 'done n-task',
    ...over,
  };
}

function clean(): Evidence {
  return {
    exchanges: [exchange('plain', { nonce: 'n-plain' }), exchange('task', { nonce: 'n-task' }), refusedTask('n-refused')],
    tasks: [task()],
    spans: [span('c1', 'n-plain', T + 10, T + 90), span('c2', 'n-task', T + 10, T + 3_000)],
    events: up,
    ports: PORTS,
    nginxErrors: '',
    logs: ['{"level":30,"msg":"tool call"}'],
  };
}

/** The invariants that fail on `evidence`, with their violation counts. */
function failing(evidence: Evidence): Record<string, number> {
  return Object.fromEntries(
    checkInvariants(evidence)
      .filter((v) => v.violations.length > 0)
      .map((v) => [v.name, v.violations.length]),
  );
}

describe('the fault test’s invariants', () => {
  it('hold on a clean record', () => {
    assert.deepEqual(failing(clean()), {});
    assert.deepEqual(
      checkInvariants(clean()).map((v) => v.name),
      [...INVARIANTS],
    );
  });

  it('1: no answer, or two, fail; a request lost with a replica SIGKILLed meanwhile, or nginx with no replica running, does not', () => {
    const e = clean();
    e.exchanges = [
      ...e.exchanges,
      exchange('plain', { answers: [], status: 502 }),
      exchange('get', {
        answers: [
          { id: 9, result: {} },
          { id: 9, result: {} },
        ],
      }),
    ];
    assert.deepEqual(failing(e), { [INVARIANTS[0]]: 2 });
    const killed = clean();
    killed.events = [...up, { at: T + 50, replica: 0, what: 'sigkill' }, { at: T + 60, replica: 0, what: 'exit', code: 'SIGKILL' }];
    killed.exchanges = [
      ...killed.exchanges,
      exchange('plain', { answers: [], status: 502 }),
      exchange('plain', { via: 0, answers: [], transportError: 'ECONNRESET' }),
    ];
    assert.deepEqual(failing(killed), {});
    const allDown = clean();
    allDown.events = [...up, ...[0, 1, 2].map((replica): ReplicaEvent => ({ at: T - 5_000, replica, what: 'sigkill' }))];
    const nginx502 = (upstream: string, start: number) => exchange('plain', { answers: [], status: 502, upstream, start, end: start + 100 });
    allDown.exchanges = [...allDown.exchanges, nginx502('127.0.0.1:4001, 127.0.0.1:4002, 127.0.0.1:4003', T)];
    assert.deepEqual(failing(allDown), {});
    allDown.exchanges = [...allDown.exchanges, nginx502('127.0.0.1:4001, 127.0.0.1:4002', T - 6_000)];
    assert.deepEqual(failing(allDown), { [INVARIANTS[0]]: 1 }, 'while they were running: a violation');
  });

  it('2: a refused task whose nonce reaches the OXP server, even later, fails', () => {
    const e = clean();
    e.spans = [...e.spans, span('c3', 'n-refused', T + 60_000, T + 61_000)];
    assert.deepEqual(failing(e), { [INVARIANTS[1]]: 1 });
  });

  it('3: two connections of one call_id open at once fail, one after the other do not; two call_ids for one nonce fail', () => {
    const resent = clean();
    resent.spans = [...resent.spans, span('c2', 'n-task', T + 3_000, T + 5_000)];
    assert.deepEqual(failing(resent), {});
    const overlapping = clean();
    overlapping.spans = [...overlapping.spans, span('c2', 'n-task', T + 2_000, T + 4_000)];
    assert.deepEqual(failing(overlapping), { [INVARIANTS[2]]: 1 });
    const twoIds = clean();
    twoIds.spans = [...twoIds.spans, span('c9', 'n-task', T + 4_000, T + 5_000)];
    assert.deepEqual(failing(twoIds), { [INVARIANTS[2]]: 1 });
  });

  it('4: a task never ended, ended twice, cancelled by nobody, or with another result fails', () => {
    const cases: Partial<TaskTrack>[] = [
      { seen: [{ at: T, status: 'working' }] },
      {
        seen: [
          { at: T, status: 'completed' },
          { at: T + 1, status: 'cancelled' },
        ],
        cancelSentAt: T,
      },
      { seen: [{ at: T, status: 'completed' }], cancelSentAt: T, cancelAnswer: 'cancelled' },
      { seen: [{ at: T, status: 'cancelled' }] },
      { resultText: 'done someone-else' },
    ];
    for (const over of cases) {
      const e = clean();
      e.tasks = [task(over)];
      assert.deepEqual(failing(e), { [INVARIANTS[3]]: 1 }, JSON.stringify(over));
    }
    const cancelled = clean();
    cancelled.tasks = [task({ seen: [{ at: T, status: 'cancelled' }], cancelSentAt: T, cancelAnswer: 'cancelled' })];
    assert.deepEqual(failing(cancelled), {});
  });

  it('5: a connection refused by a running (or draining) replica fails; by one killed, drained, exited or not yet listening does not', () => {
    const e = clean();
    const refused = (via: number, at: number) => exchange('plain', { via, start: at, end: at, answers: [], transportError: 'ECONNREFUSED' });
    e.events = [
      ...up,
      { at: T + 1_000, replica: 1, what: 'sigterm' },
      { at: T + 3_000, replica: 1, what: 'drained' },
      { at: T + 4_000, replica: 1, what: 'exit', code: 0 },
      { at: T + 1_000, replica: 2, what: 'sigkill' },
      { at: T + 1_010, replica: 2, what: 'exit', code: 'SIGKILL' },
    ];
    e.exchanges = [
      ...e.exchanges,
      refused(0, T),
      refused(1, T + 2_000),
      refused(1, T + 3_500),
      refused(1, T + 5_000),
      refused(2, T + 1_005),
      refused(0, T - 20_000),
    ];
    e.nginxErrors = [
      `1970/01/01 00:00:00 [error] 1#1: *1 connect() failed (111: Connection refused) while connecting to upstream, client: 127.0.0.1, upstream: "http://127.0.0.1:4001/mcp"`,
    ].join('\n');
    const at = new Date(T);
    const stamp = `${at.getFullYear()}/${String(at.getMonth() + 1).padStart(2, '0')}/${String(at.getDate()).padStart(2, '0')} ${[at.getHours(), at.getMinutes(), at.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':')}`;
    e.nginxErrors = e.nginxErrors.replace('1970/01/01 00:00:00', stamp);
    // Replica 0 at T (running), replica 1 at T+2 s (draining): 2 straight, 1 from nginx's log (replica 0, running that second).
    assert.deepEqual(failing(e), { [INVARIANTS[4]]: 3 });
    // Replica 0 killed and started again within the second nginx's line names: it may have refused then.
    const second = Math.floor(T / 1000) * 1000;
    e.events = [...e.events, { at: second + 300, replica: 0, what: 'sigkill' }, { at: second + 700, replica: 0, what: 'listening' }];
    assert.deepEqual(failing(e), { [INVARIANTS[4]]: 2 });
  });

  it('6: an exit nobody asked for, a SIGTERM ending non-zero, or a fatal line fails', () => {
    const e = clean();
    e.events = [
      ...up,
      { at: T + 1, replica: 0, what: 'exit', code: 1 },
      { at: T + 2, replica: 1, what: 'sigterm' },
      { at: T + 3, replica: 1, what: 'drained' },
      { at: T + 4, replica: 1, what: 'exit', code: 1 },
      { at: T + 5, replica: 1, what: 'listening' },
      { at: T + 6, replica: 1, what: 'exit', code: 1 },
      { at: T + 7, replica: 2, what: 'sigterm' },
      { at: T + 8, replica: 2, what: 'drained' },
      { at: T + 9, replica: 2, what: 'exit', code: 0 },
    ];
    e.logs = ['{"level":60,"msg":"an error nothing caught"}'];
    // Replica 0's exit, replica 1's code 1 after SIGTERM, replica 1's later exit untold, the fatal line.
    assert.deepEqual(failing(e), { [INVARIANTS[5]]: 4 });
  });
});
