/**
 * The per-call line written by the logger's own writer is byte for byte what pino writes for the same fields through
 * the same logger (the same clock reading: Date is mocked), as a string or as bytes, and what it cannot write so is
 * left to pino.
 */
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { CALL_LINE_KEYS, FieldRecord, lineWriterOf, type LineFields } from './log-line.js';
import { createLogger, REDACT_PATHS } from './log.js';

type Field = ['text', string | undefined] | ['number', number] | ['flag', boolean] | ['ref', { index: number; id?: string }];
type Fields = [(typeof CALL_LINE_KEYS)[number], Field][];

function give(line: LineFields, fields: Fields): void {
  for (const [key, [kind, value]] of fields) {
    if (kind === 'text') line.text(key, value);
    else if (kind === 'number') line.number(key, value);
    else if (kind === 'flag') line.flag(key, value);
    else line.ref(key, value);
  }
}

/** The line the writer wrote (undefined when it left it to pino), and the line pino writes for the same fields. */
function both(level: 'info' | 'warn', fields: Fields, msg = 'tool call'): { ours: string | undefined; pinos: string } {
  const lines: string[] = [];
  const log = createLogger('info', { write: (line: string) => lines.push(line) });
  const writer = lineWriterOf(log)!;
  const line = writer.begin(log.levels.values[level]!);
  give(line, fields);
  const written = writer.end(msg);
  assert.equal(lines.length, written ? 1 : 0, 'a line is written exactly when end says so');
  const record = new FieldRecord();
  give(record, fields);
  log[level](record.fields, msg);
  return { ours: written ? lines[0] : undefined, pinos: lines.at(-1)! };
}

const CALL: Fields = [
  ['call_id', ['text', '3f0c9a4e-2b7d-4c1e-9a55-0d6f1e2c3b4a']],
  ['trace_id', ['text', '4bf92f3577b34da6a3ce929d0e0e4736']],
  ['span_id', ['text', '00f067aa0ba902b7']],
  ['tool', ['text', 'github.search_issues']],
  ['upstream', ['text', 'github']],
  ['oxp_tool', ['text', 'github.search_issues@1.2.0']],
  ['protocol_version', ['text', '2026-07-28']],
  ['principal', ['text', 'ci-bot']],
  ['rule', ['ref', { index: 2, id: 'ci-read' }]],
  ['task_id', ['text', 'task-1']],
  ['outcome', ['text', 'success']],
  ['duration_ms', ['number', 12.3]],
];

describe('the call line writer', () => {
  beforeEach(() => mock.timers.enable({ apis: ['Date'], now: Date.UTC(2026, 11, 8, 0, 5, 1, 42) }));
  afterEach(() => mock.timers.reset());

  it('writes what pino writes for a call line, every key, at info and at warn', () => {
    for (const level of ['info', 'warn'] as const) {
      const { ours, pinos } = both(level, CALL);
      assert.equal(ours, pinos);
      assert.match(pinos, /^\{"level":(30|40),"time":"2026-12-08T00:05:01\.042Z","service":"mcp-oxp-bridge","call_id":/);
    }
  });

  it('writes the failed call’s fields, numbers and a rule without an id as pino does', () => {
    const failed: Fields = [
      ['call_id', ['text', 'c-1']],
      ['attempts', ['number', 3]],
      ['can_retry', ['flag', false]],
      ['detail', ['text', 'upstream answered 503 Service Unavailable']],
      ['status', ['number', 503]],
      ['mcp_task_id', ['text', undefined]],
      ['rule', ['ref', { index: 0 }]],
      ['outcome', ['text', 'unavailable']],
      ['duration_ms', ['number', 0]],
    ];
    const { ours, pinos } = both('warn', failed, 'tool call failed upstream');
    assert.equal(ours, pinos);
    for (const n of [7, 0.1, 123456.7, 1e21, -1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      const { ours: a, pinos: b } = both('info', [
        ['duration_ms', ['number', n]],
        ['can_retry', ['flag', true]],
      ]);
      assert.equal(a, b, `duration ${n}`);
    }
  });

  it('leaves to pino what it cannot write as pino would, and writes nothing of it itself', () => {
    const odd = ['say "hi"', 'back\\slash', 'tab\there', 'naïve', '日本', 'x'.repeat(5000), '\u007f'];
    for (const value of odd) {
      for (const fields of [[['detail', ['text', value]]], [['rule', ['ref', { index: 1, id: value }]]]] as Fields[]) {
        const { ours, pinos } = both('info', [...CALL, ...fields]);
        assert.equal(ours, undefined, `${value.slice(0, 20)} left to pino`);
        assert.ok(pinos.endsWith('"msg":"tool call"}\n'));
      }
      assert.equal(both('info', CALL, value).ours, undefined, 'a message it cannot write either');
    }
  });

  it('writes the next line in full after one it left to pino', () => {
    assert.equal(both('info', [['detail', ['text', 'x'.repeat(5000)]]]).ours, undefined);
    const { ours, pinos } = both('info', CALL);
    assert.equal(ours, pinos);
  });

  it('hands a destination that takes bytes the same line as bytes of its own', () => {
    const lines: string[] = [];
    const given: Uint8Array[] = [];
    const log = createLogger('info', { write: (line: string) => lines.push(line), writeBytes: (line: Uint8Array) => given.push(line) });
    const writer = lineWriterOf(log)!;
    for (const id of ['c-1', 'c-2']) {
      const fields: Fields = [['call_id', ['text', id]], ...CALL.slice(1)];
      give(writer.begin(30), fields);
      assert.ok(writer.end('tool call'));
      const record = new FieldRecord();
      give(record, fields);
      log.info(record.fields, 'tool call');
    }
    assert.equal(given.length, 2, 'no string line for the call lines');
    assert.deepEqual(
      given.map((b) => Buffer.from(b).toString('latin1')),
      lines,
      'each its own bytes, kept as given: the second line did not overwrite the first',
    );
  });

  it('takes no key that redaction names: what it writes needs none', () => {
    const redacted = new Set(REDACT_PATHS.map((path) => path.split(/[.[]/)[0]));
    for (const key of CALL_LINE_KEYS) assert.ok(!redacted.has(key), `${key} is redacted`);
  });

  it('belongs to the logger createLogger made, not to a child with bindings of its own', () => {
    const log = createLogger('info', { write: () => undefined });
    assert.ok(lineWriterOf(log));
    assert.equal(lineWriterOf(log.child({ upstream: 'github' })), undefined);
  });
});
