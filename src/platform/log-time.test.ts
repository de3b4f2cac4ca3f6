import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { isoTime, isoTimeInto } from './log-time.js';

const pinoIso = (now: number) => `,"time":"${new Date(now).toISOString()}"`;

describe('isoTime', () => {
  it('writes what pino.stdTimeFunctions.isoTime writes', () => {
    const now = Date.now();
    assert.match(pino.stdTimeFunctions.isoTime(), /^,"time":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"$/);
    assert.equal(isoTime(now), pinoIso(now));
  });

  it('agrees with Date#toISOString across second, day and year boundaries, in any order', () => {
    const edges = [Date.UTC(2026, 11, 31, 23, 59, 59, 999), Date.UTC(2027, 0, 1), Date.UTC(2028, 1, 29, 12, 0, 0, 5), 0, 999, 1000, 1_764_000_000_042];
    const times = [...edges, ...edges.map((t) => t + 1), ...edges.map((t) => t - 1)];
    for (let i = 0; i < 2_000; i++) times.push(Date.UTC(2026, 10, 26) + Math.floor(Math.random() * 86_400_000 * 3));
    for (const t of [...times, ...times.reverse()]) assert.equal(isoTime(t), pinoIso(t), `at ${t}`);
  });

  it('writes the same bytes into a buffer (isoTimeInto), after what is there, across the same boundaries', () => {
    const buf = Buffer.alloc(64, 0x2e);
    const edges = [Date.UTC(2026, 11, 31, 23, 59, 59, 999), Date.UTC(2027, 0, 1), 0, 5, 42, 999, 1000, 1_764_000_000_042];
    for (const t of [...edges, ...edges.map((e) => e + 1), ...edges.reverse()]) {
      const end = isoTimeInto(buf, 3, t);
      assert.equal(buf.toString('latin1', 3, end), pinoIso(t), `at ${t}`);
      assert.equal(buf.toString('latin1', 0, 3), '...', 'nothing written before `at`');
    }
  });

  it('reads the clock when given no time', () => {
    const before = Date.now();
    const text = isoTime();
    const at = Date.parse(text.slice(9, -1));
    assert.ok(at >= before && at <= Date.now(), text);
  });
});
