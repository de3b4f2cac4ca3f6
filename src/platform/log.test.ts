/**
 * The commands' logger on a pipe nobody reads (a FIFO opened non-blocking, as Node leaves a pipe on stderr): logging
 * never blocks, what does not fit the bound is dropped and counted, and once the pipe is read again one warning says
 * how many lines were lost.
 */
import { after, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, constants, existsSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProcessLogger } from './log.js';

const dir = mkdtempSync(join(tmpdir(), 'log-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function drain(fd: number): string {
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

it(
  'a pipe nobody reads: logging returns at once, lines past the bound are counted, one warning says how many once it is read',
  { skip: !existsSync('/usr/bin/mkfifo') && !existsSync('/bin/mkfifo'), timeout: 20_000 },
  async () => {
    const path = join(dir, 'stderr');
    execFileSync('mkfifo', [path]);
    const readFd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const fd = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK);
    const logs = createProcessLogger('info', { fd, maxBufferedChars: 100_000 });
    const started = performance.now();
    for (let i = 0; i < 2000; i++) logs.log.info({ i, pad: 'x'.repeat(150) }, 'tool call');
    assert.ok(performance.now() - started < 2000, 'logging did not wait for the reader');
    const dropped = logs.dropped();
    assert.ok(dropped > 0, 'lines past the bound were dropped');
    let text = '';
    const deadline = Date.now() + 10_000;
    while (!text.includes('log lines were dropped') && Date.now() < deadline) {
      text += drain(readFd);
      await new Promise((r) => setTimeout(r, 20));
    }
    await logs.flush();
    text += drain(readFd);
    const entries = text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { msg: string; i?: number; dropped_lines?: number; level: number });
    const calls = entries.filter((e) => e.msg === 'tool call');
    const warnings = entries.filter((e) => e.msg === 'stderr was not read fast enough: log lines were dropped');
    assert.equal(calls.length + dropped, 2000, 'every line written or counted');
    assert.equal(warnings.length, 1, text.slice(-500));
    assert.equal(warnings[0]!.dropped_lines, dropped);
    assert.equal(warnings[0]!.level, 40);
    closeSync(fd);
    closeSync(readFd);
  },
);

/**
 * The logger module as plain JavaScript, from the run's transformed tree (test/run.mjs): under tsx the child would
 * start with a non-blocking stderr already (tsx's loader uses process.stderr), and the test would prove nothing.
 * (pino, when loaded, does the same today; createProcessLogger does it itself so as not to depend on that.)
 */
const jsLogModule = process.env.TEST_JS_TREE ? join(process.env.TEST_JS_TREE, 'src/platform/log.js') : undefined;

it(
  'once the logger exists, a pipe on stderr is in non-blocking mode (a write to a full one returns EAGAIN, never blocks the process)',
  { skip: !existsSync('/proc/self/fdinfo') ? 'no /proc' : !jsLogModule ? 'needs test/run.mjs (TEST_JS_TREE)' : false },
  () => {
    const child = `
      import { readFileSync } from 'node:fs';
      const nonBlocking = () => (parseInt(/flags:\\s+(\\d+)/.exec(readFileSync('/proc/self/fdinfo/2', 'utf8'))[1], 8) & 0o4000) !== 0;
      const before = nonBlocking();
      const { createProcessLogger } = await import(${JSON.stringify(jsLogModule)});
      createProcessLogger('info');
      process.stdout.write(JSON.stringify({ before, after: nonBlocking() }));
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', child], { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { before: false, after: true });
  },
);
