/** src/forward/face/stdio-in.ts: stdin fed to the transport one line per turn, paused, and stopped for good. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { StdinFeed } from './stdio-in.js';

const turn = () => new Promise((r) => setImmediate(r));

/** A feed over a real stream standing in for stdin, and what the transport has been handed so far. */
function feedOf(stdin = new PassThrough()) {
  const handed: string[] = [];
  let idle = 0;
  const feed = new StdinFeed(stdin, () => idle++);
  feed.input.on('data', (chunk: Buffer) => handed.push(chunk.toString()));
  return { stdin, feed, handed, idled: () => idle };
}

test('one chunk of many lines is handed over one line per turn, in order; a piece without its newline waits for it', async () => {
  const { stdin, feed, handed, idled } = feedOf();
  // How many pieces each turn of the event loop handed over.
  let inThisTurn = 0;
  let most = 0;
  feed.input.on('data', () => {
    if (inThisTurn++ === 0) setImmediate(() => (inThisTurn = 0));
    most = Math.max(most, inThisTurn);
  });
  stdin.write('{"id":1}\n{"id":2}\n{"id":3}\n{"par');
  for (let i = 0; i < 20 && handed.length < 3; i++) await turn();
  for (let i = 0; i < 5; i++) await turn();
  assert.deepEqual(handed, ['{"id":1}\n', '{"id":2}\n', '{"id":3}\n']);
  assert.equal(most, 1);
  stdin.write('tial":4}\n');
  for (let i = 0; i < 20 && handed.length < 4; i++) await turn();
  assert.deepEqual(handed.at(-1), '{"partial":4}\n', "a line's pieces are handed over as one (the SDK's buffer copies itself per piece)");
  await turn();
  assert.ok(idled() > 0, 'told once everything read was handed over');
});

test('a line longer than the bound is handed over as soon as it is, for the transport to refuse', async () => {
  const stdin = new PassThrough();
  const feed = new StdinFeed(stdin, () => undefined, 64 * 1024, 100);
  const handed: string[] = [];
  feed.input.on('data', (chunk: Buffer) => handed.push(chunk.toString()));
  for (let i = 0; i < 3; i++) stdin.write('x'.repeat(40));
  for (let i = 0; i < 5; i++) await turn();
  assert.deepEqual(handed, ['x'.repeat(120)]);
});

test('paused: nothing more is handed over, and stdin is not read past the read-ahead; resumed: the rest', async () => {
  const stdin = new PassThrough({ highWaterMark: 1024 });
  const { feed, handed } = feedOf(stdin);
  feed.pause(true);
  const line = `${'x'.repeat(1023)}\n`;
  let accepted = 0;
  for (let i = 0; i < 200; i++) if (stdin.write(line)) accepted++;
  for (let i = 0; i < 5; i++) await turn();
  assert.deepEqual(handed, []);
  assert.ok(stdin.isPaused(), 'past the read-ahead (64 KiB here), stdin is not read');
  assert.ok(!feed.idle);
  feed.pause(false);
  for (let i = 0; i < 400 && handed.length < 200; i++) await turn();
  assert.equal(handed.length, 200);
  assert.ok(accepted < 200, 'the writer felt the backpressure');
});

test('stopped: stdin is read no more, what was read is still handed over (even while paused)', async () => {
  const { stdin, feed, handed } = feedOf();
  feed.pause(true);
  stdin.write('{"id":1}\n{"id":2}\n');
  await turn();
  feed.stop();
  stdin.write('{"id":3}\n');
  for (let i = 0; i < 5; i++) await turn();
  assert.deepEqual(handed, ['{"id":1}\n', '{"id":2}\n']);
  assert.ok(feed.idle);
});
