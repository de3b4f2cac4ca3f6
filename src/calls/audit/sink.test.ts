import { after, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { ConfigError } from '../../config/errors.js';
import { createLogger } from '../../platform/log.js';
import { LineWriter } from '../../platform/line-writer.js';
import { createAuditSink, openAuditSinks } from './sink.js';

const dir = mkdtempSync(join(tmpdir(), 'audit-sink-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function capturedLog() {
  const lines: string[] = [];
  const log = createLogger('info', new Writable({ write: (c, _e, done) => (lines.push(String(c)), done()) }));
  return { log, lines };
}

const call = (i: number) =>
  ({ decision: 'allowed', outcome: 'success', principal: { name: `p${i}`, kind: 'token' }, protocol: 'oxp/1.0', tool: { name: 'T' } }) as const;
const linesOf = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean);

it('file: records appended as JSON lines, the file created with mode 0600, flushed on demand', async () => {
  const path = join(dir, 'a.jsonl');
  writeFileSync(path, '{"earlier":true}\n', { mode: 0o600 });
  const sink = createAuditSink({ path }, capturedLog().log, { stdoutIsProtocol: true });
  assert.equal(sink.kind, 'file', 'a path alone means a file');
  assert.ok(openAuditSinks().includes(sink), 'open: the exits will flush it');
  for (let i = 0; i < 500; i++) sink.call(call(i));
  await sink.flush();
  const lines = linesOf(path);
  assert.equal(lines.length, 501, 'appended to what was there');
  assert.deepEqual(
    lines.slice(1).map((l) => (JSON.parse(l) as { principal: { name: string } }).principal.name),
    Array.from({ length: 500 }, (_, i) => `p${i}`),
    'in order',
  );
  sink.reload({ outcome: 'rejected' });
  await sink.close();
  assert.equal(linesOf(path).length, 502, 'close flushes');
  assert.ok(!openAuditSinks().includes(sink), 'closed: no longer open');
  sink.call(call(0));
  assert.deepEqual(sink.stats(), { records: 502, lost: 1, writeErrors: 0 }, 'a record after close is counted lost');

  const fresh = join(dir, 'fresh.jsonl');
  const other = createAuditSink({ sink: 'file', path: fresh }, capturedLog().log, { stdoutIsProtocol: false });
  assert.equal(statSync(fresh).mode & 0o777, 0o600);
  await other.close();
});

it('reopen: after the file is renamed away (logrotate), records go to a new file at the path; none lost across both', async () => {
  const path = join(dir, 'rotated.jsonl');
  const sink = createAuditSink({ path }, capturedLog().log, { stdoutIsProtocol: false });
  for (let i = 0; i < 100; i++) sink.call(call(i));
  // Renamed while records are still gathered or being written: those may land in either file, but in one of them.
  renameSync(path, `${path}.1`);
  sink.reopen();
  for (let i = 100; i < 200; i++) sink.call(call(i));
  await sink.close();
  assert.ok(existsSync(path), 'a new file at the path');
  assert.equal(statSync(path).mode & 0o777, 0o600);
  const all = [...linesOf(`${path}.1`), ...linesOf(path)].map((l) => (JSON.parse(l) as { principal: { name: string } }).principal.name);
  assert.deepEqual(all.sort(), Array.from({ length: 200 }, (_, i) => `p${i}`).sort());
  assert.ok(linesOf(path).length >= 100, 'the records after the reopen are in the new file');
});

it('settings that cannot work are configuration errors with the key to fix', () => {
  const { log } = capturedLog();
  assert.throws(
    () => createAuditSink({ sink: 'stdout' }, log, { stdoutIsProtocol: true }),
    (e) => e instanceof ConfigError && /standard output is the MCP protocol/.test(e.message),
  );
  assert.throws(
    () => createAuditSink({ sink: 'file' }, log, { stdoutIsProtocol: false }),
    (e) => e instanceof ConfigError && /set audit\.path/.test(e.message),
  );
  assert.throws(
    () => createAuditSink({ path: join(dir, 'missing', 'a.jsonl') }, log, { stdoutIsProtocol: false }),
    (e) => e instanceof ConfigError && /ENOENT.*directory must exist/.test(e.message),
  );
  assert.equal(createAuditSink({}, log, { stdoutIsProtocol: true }).kind, 'off');
  assert.equal(createAuditSink({ sink: 'off', path: join(dir, 'never.jsonl') }, log, { stdoutIsProtocol: true }).kind, 'off');
  assert.ok(!existsSync(join(dir, 'never.jsonl')), 'off opens nothing');
});

it(
  'a failing disk (ENOSPC on /dev/full) never throws or hangs: records counted lost, reported once, flushes return',
  { skip: !existsSync('/dev/full'), timeout: 20_000 },
  async () => {
    const { log, lines } = capturedLog();
    const sink = createAuditSink({ path: '/dev/full' }, log, { stdoutIsProtocol: false });
    for (let i = 0; i < 300; i++) sink.call(call(i)); // several writes' worth
    await sink.flush();
    for (let i = 0; i < 10; i++) sink.call(call(i));
    sink.flushSync(); // sonic-boom's never returns here
    const stats = sink.stats();
    assert.equal(stats.records, 310);
    assert.equal(stats.lost, 310);
    assert.ok(stats.writeErrors >= 2, JSON.stringify(stats));
    const reports = lines.filter((l) => l.includes('audit records could not be written'));
    assert.equal(reports.length, 1, 'rate-limited: one line for the burst');
    assert.match(reports[0]!, /"sink":"\/dev\/full".*"err":"ENOSPC/);
    await sink.close();
  },
);

it('while writes do not keep up, at most the bound waits; the rest is counted lost', async () => {
  const lost: number[] = [];
  const writer = new LineWriter(
    { path: join(dir, 'bounded.jsonl') },
    { flushChars: 1_000_000, flushIntervalMs: 60_000, maxBufferedChars: 100, onLost: (n) => lost.push(n), onReopenFailed: () => undefined },
  );
  for (let i = 0; i < 20; i++) writer.write('0123456789\n'); // 11 characters each: 9 fit
  assert.deepEqual(lost, Array(11).fill(1));
  await writer.close();
  assert.equal(linesOf(join(dir, 'bounded.jsonl')).length, 9);
});
