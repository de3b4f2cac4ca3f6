/** The console's recorder: bounded, newest first, shapes by default, redaction when values are shown, windowed percentiles. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LatencyWindow } from '../../src/console/latency-window.js';
import { CallRecorder, MAX_SHOWN_CHARS, MAX_TRACKED_TOOLS, type FinishedCall } from '../../src/console/recorder.js';
import { MAX_PRINCIPAL_CHARS, redactedJson, ShapeMemo, shapeOf, shownName } from '../../src/console/redact.js';

const call = (over: Partial<FinishedCall> = {}): FinishedCall => ({
  tool: 't',
  upstream: 'u',
  revision: '2025-06-18',
  outcome: 'success',
  durationMs: 5,
  failed: false,
  callId: 'c',
  traceId: undefined,
  args: { q: 'secret value', api_key: 'k-123', n: 1 },
  result: { content: [{ type: 'text', text: 'hello' }], developer_message: 'internal detail' },
  ...over,
});

describe('console recorder', () => {
  it('keeps the last N calls, newest first', () => {
    const r = new CallRecorder({ recentCalls: 3, showArguments: false });
    for (let i = 0; i < 5; i++) r.record(call({ callId: `c${i}` }));
    assert.deepEqual(
      r.recent().map((c) => c.callId),
      ['c4', 'c3', 'c2'],
    );
    assert.deepEqual(
      r.recent(2).map((c) => c.callId),
      ['c4', 'c3'],
    );
  });

  it("names each call's principal; a name from outside is cut and its invisible or reordering characters replaced when read", () => {
    const r = new CallRecorder({ recentCalls: 5, showArguments: false });
    const long = `u${'x'.repeat(1000)}`;
    r.record(call({ principal: 'alice', principalKind: 'token' }));
    r.record(call({ principal: long, principalKind: 'oauth' }));
    r.record(call({ principal: 'mal\u202Eroy\u0000\u200B<b>x</b>', principalKind: 'oauth' }));
    r.record(call());
    const [none, odd, cut, alice] = r.recent();
    assert.deepEqual([alice!.principal, alice!.principalKind], ['alice', 'token']);
    assert.equal(cut!.principal, `${long.slice(0, MAX_PRINCIPAL_CHARS)}… (1001 characters)`);
    assert.equal(odd!.principal, 'mal\uFFFDroy\uFFFD\uFFFD<b>x</b>', 'markup stays text for the page to set as text');
    assert.deepEqual([none!.principal, none!.principalKind], [null, null]);
    assert.equal(
      shownName(`${'a'.repeat(MAX_PRINCIPAL_CHARS - 1)}😀`, MAX_PRINCIPAL_CHARS),
      `${'a'.repeat(MAX_PRINCIPAL_CHARS - 1)}… (129 characters)`,
      'not through a surrogate pair',
    );
  });

  it('by default keeps only shapes: keys and types, never a value, never developer_message', () => {
    const r = new CallRecorder({ recentCalls: 5, showArguments: false });
    r.record(call());
    const [c] = r.recent();
    assert.deepEqual(c!.arguments, { q: 'string', api_key: '[redacted]', n: 'number' });
    assert.deepEqual(c!.result, { content: 'array' });
    assert.doesNotMatch(JSON.stringify(c), /secret value|k-123|hello|internal detail|developer/);
  });

  it('with showArguments: values, but credential-like keys redacted at any depth, developer_message dropped, text bounded', () => {
    const r = new CallRecorder({ recentCalls: 5, showArguments: true });
    r.record(call({ args: { q: 'visible', nested: { Authorization: 'Bearer x', list: [{ password: 'p' }] } } }));
    const [c] = r.recent();
    assert.equal(c!.arguments, '{"q":"visible","nested":{"Authorization":"[redacted]","list":[{"password":"[redacted]"}]}}');
    assert.doesNotMatch(String(c!.result), /internal detail|developer/);
    assert.match(redactedJson({ s: 'x'.repeat(MAX_SHOWN_CHARS * 2) }, MAX_SHOWN_CHARS), /… \(\d+ characters\)$/);
    assert.equal(shapeOf('text'), 'string');
  });

  it('keeps no value past the call: what it shows is what the call held when recorded, whatever happens to it later', () => {
    const r = new CallRecorder({ recentCalls: 5, showArguments: false });
    const finished = call();
    r.record(finished);
    const args = finished.args as Record<string, unknown>;
    args.q = 42; // the call's own objects change, and the caller reuses its FinishedCall for the next call
    args.token = 'later secret';
    finished.tool = 'other';
    finished.args = { entirely: 'different' };
    r.record(call({ args: { q: 'x', api_key: 'k', n: 2 } }));
    const [second, first] = r.recent();
    assert.equal(first!.tool, 't');
    assert.deepEqual(first!.arguments, { q: 'string', api_key: '[redacted]', n: 'number' });
    assert.deepEqual(second!.arguments, first!.arguments);
    assert.doesNotMatch(JSON.stringify(r.recent()), /later secret|different|k-123/);
  });

  it("a shape is reused while a tool's values keep it, and made anew when keys, order or types change", () => {
    const memo = new ShapeMemo();
    const a = memo.shapeOf({ q: 'one', api_key: 'k', n: 1 });
    assert.equal(memo.shapeOf({ q: 'two', api_key: 7, n: 2 }), a, 'same keys and shown types: the same shape (a credential-like key shows no type)');
    assert.deepEqual(memo.shapeOf({ q: 'two', n: 2, api_key: 'k' }), { q: 'string', n: 'number', api_key: '[redacted]' });
    assert.deepEqual(memo.shapeOf({ q: null, n: 2, api_key: 'k' }), { q: 'null', n: 'number', api_key: '[redacted]' });
    assert.deepEqual(memo.shapeOf({ q: null, n: 2 }), { q: 'null', n: 'number' });
    assert.deepEqual(memo.shapeOf({ q: null, n: 2, extra: [] }), { q: 'null', n: 'number', extra: 'array' });
    assert.deepEqual(memo.shapeOf({ developer_message: 'd', q: 1 }), { q: 'number' });
    assert.deepEqual(memo.shapeOf({ developer_message: { x: 1 }, q: 1 }), { q: 'number' });
    assert.equal(memo.shapeOf([1]), 'array');
    assert.equal(memo.shapeOf('text'), 'string');
    const wide = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i]));
    assert.equal((memo.shapeOf(wide) as Record<string, string>)['…'], '8 more');
    for (const value of [{ q: 1 }, { q: '1' }, { r: 1 }, { q: 1, r: 1 }, {}, { r: 1, q: 1 }, { q: [1] }, { q: { a: 1 } }])
      assert.deepEqual(memo.shapeOf(value), shapeOf(value));
  });

  it('per-tool statistics are bounded: tools beyond the limit share one entry', () => {
    const r = new CallRecorder({ recentCalls: 1, showArguments: false });
    for (let i = 0; i < MAX_TRACKED_TOOLS + 10; i++) r.record(call({ tool: `tool${i}` }));
    const stats = r.toolStats();
    assert.equal(stats.length, MAX_TRACKED_TOOLS + 1);
    assert.equal(stats.find((s) => s.tool === '(other tools)')!.window.count, 10);
  });

  it('upstream windows: counts, errors and percentiles per slot; old slots expire', () => {
    let now = 1_000_000;
    const r = new CallRecorder({ recentCalls: 1, showArguments: false }, () => now);
    for (let i = 1; i <= 100; i++) r.record(call({ durationMs: i, failed: i > 95 }));
    r.record(call({ upstream: undefined, durationMs: 10_000 })); // never reached an upstream: not in its window
    const w = r.upstreamWindow('u');
    assert.equal(w.slots.length, 30);
    assert.equal(w.total.count, 100);
    assert.equal(w.total.errors, 5);
    assert.ok(Math.abs(w.total.p50! - 50) / 50 < 0.2, `p50 ≈ 50 ms: ${w.total.p50}`);
    assert.ok(Math.abs(w.total.p99! - 99) / 99 < 0.2, `p99 ≈ 99 ms: ${w.total.p99}`);
    now += 5 * 60_000 + 10_000;
    assert.equal(r.upstreamWindow('u').total.count, 0, 'after five minutes the window is empty');
    assert.equal(r.upstreamWindow('unknown').total.p50, null);
  });

  it("a percentile is the mean of its bin's samples: a lone call's own duration, never outside the samples", () => {
    const w = new LatencyWindow(2, 1000);
    w.record(100, 6.49, false);
    assert.deepEqual([w.snapshot(100).total.p50, w.snapshot(100).total.p99], [6.5, 6.5], 'one call: its duration (to 0.1 ms, as logged)');
    assert.equal(w.snapshot(100).slots[1]!.p50, 6.5);
    w.record(200, 6.61, false); // the same bin (6.1 … 7.2 ms)
    w.record(300, 40, false);
    const t = w.snapshot(300).total;
    assert.equal(t.p50, 6.6, 'the mean of the two samples in the p50 bin');
    assert.equal(t.p99, 40);
  });

  it('a slot is reused in place when its time comes round again', () => {
    const w = new LatencyWindow(2, 1000);
    w.record(500, 1, false);
    w.record(2500, 1, true); // same ring position as t=500, two slots later
    const s = w.snapshot(2600);
    assert.deepEqual(
      s.slots.map((x) => x.count),
      [0, 1],
    );
    assert.equal(s.total.errors, 1);
  });
});
