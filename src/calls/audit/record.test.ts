import { it } from 'node:test';
import assert from 'node:assert/strict';
import { argumentKeys, auditLine, callRecord, reloadRecord, type CallDecision } from './record.js';

const CANARY = 'CANARY-7f3a9c1e-secret';
const AT = Date.parse('2026-11-25T10:00:00.123Z');

const decision = (over: Partial<CallDecision> = {}): CallDecision => ({
  decision: 'allowed',
  outcome: 'success',
  principal: { name: 'alice', kind: 'token', groups: ['ops'] },
  client: '192.0.2.7',
  protocol: 'mcp/2025-06-18',
  tool: { name: 'Calculator_Add', oxpId: 'Calculator.Add@1.0.0', upstream: 'a' },
  durationMs: 12.345,
  callId: 'c-1',
  traceId: '0af7651916cd43dd8448eb211c80319c',
  arguments: { b: 2, a: 1 },
  ...over,
});

/** The line must be exactly one line of JSON: one newline, at the end, and nothing a reader might split at. */
function oneLine(line: string): Record<string, any> {
  assert.ok(line.endsWith('\n'), 'ends with its newline');
  assert.equal(line.indexOf('\n'), line.length - 1, 'no other newline');
  const unsafe = [...line.slice(0, -1)].filter((c) => {
    const n = c.codePointAt(0)!;
    return n < 0x20 || (n >= 0x7f && n <= 0x9f) || n === 0x2028 || n === 0x2029;
  });
  assert.deepEqual(unsafe, [], 'nothing a reader takes for a line break or a control');
  return JSON.parse(line) as Record<string, any>;
}

it('a call record holds the decision, in a fixed order, with argument keys sorted and no value', () => {
  const line = auditLine(callRecord(decision(), AT));
  assert.equal(
    line,
    '{"time":"2026-11-25T10:00:00.123Z","type":"call","decision":"allowed","outcome":"success","principal":{"name":"alice","kind":"token","groups":["ops"]},' +
      '"protocol":"mcp/2025-06-18","tool":{"name":"Calculator_Add","oxpId":"Calculator.Add@1.0.0","upstream":"a"},"client":"192.0.2.7","durationMs":12.3,' +
      '"callId":"c-1","traceId":"0af7651916cd43dd8448eb211c80319c","argumentKeys":["a","b"]}\n',
  );
  const denied = oneLine(auditLine(callRecord(decision({ decision: 'denied', outcome: 'denied', rule: { index: 2, id: 'no-shell' }, durationMs: undefined }))));
  assert.deepEqual(denied.rule, { index: 2, id: 'no-shell' });
  assert.equal('durationMs' in denied, false);
  const bare = oneLine(
    auditLine(callRecord({ decision: 'limited', outcome: 'rate_limited', principal: { name: 'a', kind: 'anonymous' }, protocol: 'oxp/1.0', tool: {} })),
  );
  assert.deepEqual(Object.keys(bare), ['time', 'type', 'decision', 'outcome', 'principal', 'protocol', 'tool'], 'absent fields are left out, not null');
});

it('argument keys only: a canary value in arguments, context.secrets or developer_message never reaches the line', () => {
  const careless = {
    ...decision({ arguments: { apiKey: CANARY, nested: { token: CANARY }, list: [CANARY] } }),
    // What a caller might hold beside the decision: the whole OXP request and an upstream's error detail.
    context: { secrets: [{ id: 'API_KEY', value: CANARY }], authorization: [{ id: 'github', token: CANARY }] },
    developer_message: CANARY,
    input: { apiKey: CANARY },
  } as CallDecision;
  const line = auditLine(callRecord(careless));
  assert.ok(!line.includes(CANARY), line);
  assert.deepEqual(oneLine(line).argumentKeys, ['apiKey', 'list', 'nested']);
  assert.deepEqual(argumentKeys({ z: CANARY, a: { b: CANARY } }), ['a', 'z']);
  for (const notAnObject of [null, undefined, CANARY, 42, [CANARY], true]) assert.deepEqual(argumentKeys(notAnObject), [], String(notAnObject));
});

it('argument keys are bounded: at most 64, each at most 128 characters, the rest counted', () => {
  const many = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${String(i).padStart(4, '0')}${'x'.repeat(i === 0 ? 500 : 0)}`, i]));
  const record = callRecord(decision({ arguments: many }));
  assert.equal(record.argumentKeys!.length, 64);
  assert.equal(record.argumentKeysOmitted, 936);
  assert.ok(record.argumentKeys!.every((k) => k.length <= 128));
  assert.equal(record.argumentKeys![0], `k0000${'x'.repeat(122)}…`);
  assert.deepEqual(record.argumentKeys, [...record.argumentKeys!].sort());
});

it('a principal name with control characters, U+2028, NEL and a forged record stays one line that parses back to it', () => {
  const hostile = `mallory\n{"time":"2026-01-01T00:00:00.000Z","type":"call","decision":"allowed"}\r\u2028\u2029\u0085\u001b[31m\u009b\u202e\u0000end`;
  const line = auditLine(callRecord(decision({ principal: { name: hostile, kind: 'token\nforged', groups: ['a\u2028b'] }, tool: { name: 'x\ny' } })));
  const parsed = oneLine(line);
  assert.equal(parsed.principal.name, hostile, 'escaped, not altered');
  assert.equal(parsed.principal.kind, 'token\nforged');
  assert.deepEqual(parsed.principal.groups, ['a\u2028b']);
  assert.equal(parsed.tool.name, 'x\ny');
  assert.match(line, /\\u2028/);
  assert.match(line, /\\u202e/);
});

it('outside strings are cut: a 1 MB name makes no 1 MB line, and a surrogate pair is never split', () => {
  const huge = 'n'.repeat(1_000_000);
  const record = callRecord(
    decision({
      principal: { name: huge, kind: huge, groups: Array.from({ length: 1000 }, () => huge) },
      tool: { name: huge, oxpId: huge, upstream: huge },
      client: huge,
      callId: huge,
      traceId: huge,
      // Outcomes are the bridge's own words (core/call-outcomes.ts); the bound holds whatever reaches it.
      outcome: huge as CallDecision['outcome'],
      rule: { index: 1, id: huge },
      arguments: { [huge]: 1 },
    }),
  );
  const line = auditLine(record);
  assert.ok(line.length < 20_000, `${line.length} characters`);
  assert.equal(record.principal.name.length, 256);
  assert.equal(record.principal.groups!.length, 32);
  const emoji = `${'a'.repeat(254)}😀😀`;
  assert.equal(callRecord(decision({ principal: { name: emoji, kind: 'k' } })).principal.name, `${'a'.repeat(254)}…`, 'cut before the pair, not inside it');
  assert.equal(oneLine(auditLine(callRecord(decision({ principal: { name: `${'a'.repeat(253)}😀😀`, kind: 'k' } })))).principal.name, `${'a'.repeat(253)}😀…`);
});

it('a reload record: applied with what changed and what needs a restart, or rejected with no reason', () => {
  assert.equal(
    auditLine(reloadRecord({ outcome: 'applied', changes: ['logLevel', 'upstreams: added b'], restartRequired: ['port'], file: '/etc/bridge.yaml' }, AT)),
    '{"time":"2026-11-25T10:00:00.123Z","type":"reload","outcome":"applied","changes":["logLevel","upstreams: added b"],"restartRequired":["port"],"file":"/etc/bridge.yaml"}\n',
  );
  assert.deepEqual(oneLine(auditLine(reloadRecord({ outcome: 'rejected', restartRequired: [] }, AT))), {
    time: '2026-11-25T10:00:00.123Z',
    type: 'reload',
    outcome: 'rejected',
    changes: [],
  });
});
