/**
 * LineWriter's `sync` writes (the log on stderr) on a real pipe: a FIFO opened non-blocking, as Node leaves a pipe on
 * stderr. A reader that stops reading never blocks the writer; lines wait up to the bound, the rest are counted lost;
 * once the reader reads again everything kept comes out whole and in order, and flushSync writes a stalled batch
 * before the lines gathered after it.
 */
import { after, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, readlinkSync, readSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LineWriter, type LineWriterOptions } from './line-writer.js';

const dir = mkdtempSync(join(tmpdir(), 'line-writer-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const hasFifo = existsSync('/usr/bin/mkfifo') || existsSync('/bin/mkfifo');
let fifos = 0;

/** A FIFO held open for writing (non-blocking) and for reading by this process, which reads only when asked. */
function fifo(): { path: string; writeFd: number; readFd: number } {
  const path = join(dir, `fifo-${++fifos}`);
  execFileSync('mkfifo', [path]);
  const readFd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const writeFd = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK);
  return { path, writeFd, readFd };
}

function readlinkSafe(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

/** Everything the pipe holds now. */
function readAvailable(fd: number): string {
  const chunks: Buffer[] = [];
  const buf = Buffer.alloc(65536);
  for (;;) {
    try {
      const n = readSync(fd, buf);
      if (n === 0) break;
      chunks.push(Buffer.from(buf.subarray(0, n)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') break;
      throw error;
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}

const options = (lost: number[], extra: Partial<LineWriterOptions> = {}): LineWriterOptions => ({
  writes: 'sync',
  flushChars: 4096,
  flushIntervalMs: 60_000,
  maxBufferedChars: 200_000,
  onLost: (n) => lost.push(n),
  onReopenFailed: () => undefined,
  ...extra,
});

const line = (i: number) => `${JSON.stringify({ i, pad: 'x'.repeat(180) })}\n`;
const indexes = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { i: number }).i);

it(
  'sync, a reader that stops: writes never block, the bound holds, the rest is counted lost; then all kept lines come out in order',
  { skip: !hasFifo },
  async () => {
    const { writeFd, readFd } = fifo();
    const lost: number[] = [];
    const writer = new LineWriter({ fd: writeFd }, options(lost));
    const lines = 3000; // ~600 KB: more than the pipe (64 KiB) and the bound (200 KB) hold together
    const started = performance.now();
    // Text and bytes (the call line's, log-line.ts) alike, in the order given.
    for (let i = 0; i < lines; i++) writer.write(i % 3 === 0 ? Buffer.from(line(i), 'latin1') : line(i));
    assert.ok(performance.now() - started < 2000, 'the writes returned at once');
    const dropped = lost.reduce((a, b) => a + b, 0);
    assert.ok(dropped > 0, 'lines beyond the bound were dropped');
    assert.ok(writer.backlog <= 200_000 + 4096 + 200, `backlog ${writer.backlog} within the bound`);
    let text = '';
    const flushed = writer.flush();
    let done = false;
    void flushed.then(() => (done = true));
    while (!done) {
      text += readAvailable(readFd);
      await new Promise((r) => setTimeout(r, 5));
    }
    text += readAvailable(readFd);
    const got = indexes(text);
    assert.equal(got.length + dropped, lines, 'every line written or counted lost');
    assert.deepEqual(
      got,
      [...got].sort((a, b) => a - b),
      'in order',
    );
    assert.equal(got[0], 0, 'the first lines were kept');
    await writer.close();
    closeSync(writeFd);
    closeSync(readFd);
  },
);

it(
  'sync, flushSync: a batch the reader was not ready for goes out first, then the lines gathered after it',
  { skip: !hasFifo || !existsSync('/proc/self/fd'), timeout: 20_000 },
  async () => {
    const { path, writeFd, readFd } = fifo();
    const lost: number[] = [];
    const writer = new LineWriter({ fd: writeFd }, options(lost, { maxBufferedChars: 10_000_000 }));
    for (let i = 0; i < 1000; i++) writer.write(line(i)); // ~200 KB: the pipe is full, a batch waits to be retried
    assert.ok(writer.backlog > 0, 'a stalled write');
    // Another process reads the pipe from now on, while this thread blocks in flushSync.
    const out = join(dir, 'read.txt');
    const reader = spawn('sh', ['-c', `exec cat "${path}" > "${out}"`], { stdio: 'ignore' });
    // Until cat has the pipe open (this process, which never reads it, keeps its own reading end until the end).
    const opened = () => readdirSync(`/proc/${reader.pid}/fd`).some((fd) => readlinkSafe(`/proc/${reader.pid}/fd/${fd}`) === path);
    while (!opened()) await new Promise((r) => setTimeout(r, 10));
    writer.flushSync();
    assert.equal(writer.backlog, 0);
    closeSync(writeFd);
    await once(reader, 'exit');
    closeSync(readFd);
    await writer.close();
    assert.deepEqual(
      indexes(readFileSync(out, 'utf8')),
      Array.from({ length: 1000 }, (_, i) => i),
    );
    assert.deepEqual(lost, []);
  },
);

it('sync, a write that fails (the reader is gone, EPIPE): its lines counted lost with the error, nothing thrown', { skip: !hasFifo }, async () => {
  const { writeFd, readFd } = fifo();
  closeSync(readFd);
  const lost: { n: number; code: string | undefined }[] = [];
  const writer = new LineWriter({ fd: writeFd }, { ...options([]), onLost: (n, e) => lost.push({ n, code: e?.code }) });
  for (let i = 0; i < 100; i++) writer.write(line(i));
  await writer.flush();
  writer.flushSync();
  assert.equal(
    lost.reduce((a, b) => a + b.n, 0),
    100,
  );
  assert.ok(
    lost.every((l) => l.code === 'EPIPE'),
    JSON.stringify(lost),
  );
  await writer.close();
  closeSync(writeFd);
});
