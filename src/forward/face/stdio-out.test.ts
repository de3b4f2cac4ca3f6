/**
 * src/forward/face/stdio-out.ts over a real (Unix) socket whose reader stops reading: writers wait without a listener
 * per write, and everyone waiting is released when the reader catches up. (That the output waiting stays near the mark
 * is the feed's part too, stdio-in.ts: test/integration/stdio.test.ts holds the two together.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StdoutWriter } from './stdio-out.js';

/** A connected pair over a Unix socket (small kernel buffers, as a pipe has): `out` to write to, `reader` paused until the test reads. */
async function socketPair(): Promise<{ out: Socket; reader: Socket; close: () => void }> {
  const server = createServer();
  const path = join(mkdtempSync(join(tmpdir(), 'stdio-out-')), 'socket');
  server.listen(path);
  await once(server, 'listening');
  const accepted = once(server, 'connection') as Promise<[Socket]>;
  const out = connect(path);
  const [reader] = await accepted;
  reader.pause();
  return {
    out,
    reader,
    close: () => {
      out.destroy();
      reader.destroy();
      server.close();
    },
  };
}

test('a reader that does not read: writers wait, with no listener per write; told once; all released when it reads', async () => {
  const { out, reader, close } = await socketPair();
  const told: [boolean, number][] = [];
  const mark = 64 * 1024;
  const writer = new StdoutWriter(out, (backedUp, bytes) => told.push([backedUp, bytes]), mark);
  const listeners = () => [out.listenerCount('drain'), out.listenerCount('error')];
  const before = listeners();
  try {
    const line = `${'x'.repeat(4095)}\n`;
    let settled = 0;
    const writes = Array.from({ length: 400 }, () => writer.write(line).then(() => void settled++));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(listeners(), before, 'no listener added per write');
    assert.ok(settled < 400, 'writers over the mark wait for the reader');
    assert.deepEqual(
      told.map(([b]) => b),
      [true],
    );
    assert.ok(told[0]![1] > mark);

    reader.resume();
    await Promise.all(writes);
    assert.deepEqual(
      told.map(([b]) => b),
      [true, false],
    );
    assert.equal(writer.waitingBytes, 0);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(listeners(), before);
  } finally {
    close();
  }
});

test('a stream that fails releases whoever waits with its error, and refuses later writes', async () => {
  const { out, close } = await socketPair();
  const writer = new StdoutWriter(out, () => undefined, 1024);
  try {
    const waiting = writer.write('x'.repeat(256 * 1024));
    out.destroy(new Error('EPIPE, say'));
    await assert.rejects(waiting, /EPIPE, say/);
    await assert.rejects(writer.write('more\n'), /EPIPE, say|stdout closed/);
  } finally {
    close();
  }
});
