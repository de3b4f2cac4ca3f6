/**
 * The audit trail's file, with the real CLI as a child process: N records then SIGTERM, stdin's end (stdio) or an
 * error nothing caught leave exactly N lines (the buffered records are written out by the command's exits); SIGHUP
 * after logrotate renamed the file sends later records to a new file at the path, none lost across the two; a config
 * reload leaves a record, applied or rejected, and never a value from the file.
 *
 * Until the call path writes records itself, test/helpers/audit-records.ts writes them through the command's own
 * sink (the same module instance): every other part is the product's.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { mcpStdioCommand } from '../fixtures/mcp-fixture-server.js';
import { HOSTILE_GROUP } from '../helpers/audit-records.js';
import { startCli, type CliProcess } from '../helpers/cli-process.js';
import { commandLine, eventually } from '../helpers/oxp-server-harness.js';

const RECORDS = 1000;
const CANARY = 'CANARY-3b1f0d2e-do-not-log';
/** test/helpers/audit-records.ts as the CLI child loads it: from the run's JavaScript tree (test/run.mjs), else the source under tsx. */
const RECORDS_HOOK = process.env.TEST_JS_TREE
  ? join(process.env.TEST_JS_TREE, 'test/helpers/audit-records.js')
  : fileURLToPath(new URL('../helpers/audit-records.ts', import.meta.url));
const CRASH_HOOK = fileURLToPath(new URL('../helpers/crash-on-signal.mjs', import.meta.url));

const dir = mkdtempSync(join(tmpdir(), 'audit-it-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const auditPath = () => join(dir, `audit-${++files}.jsonl`);

type Line = {
  time: string;
  type: string;
  decision?: string;
  outcome?: string;
  principal?: { name: string; groups?: string[] };
  changes?: string[];
  restartRequired?: string[];
  file?: string;
};

/** Every line of the file, each a whole record. */
function records(path: string): Line[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      try {
        return JSON.parse(l) as Line;
      } catch {
        throw new Error(`not a whole record: ${l}`);
      }
    });
}

const names = (lines: Line[]) => lines.map((r) => r.principal?.name ?? '?');
const batch = (n: number, count = RECORDS) => Array.from({ length: count }, (_, i) => `p-${n}-${i}`);

/**
 * The CLI writing `count` records per batch to the file at `path` (or standard output) through its own sink. Not
 * waiting for the listening line (startCli's `stdio`): the hook starts once the command is ready, and may end it
 * before the line is read.
 */
function startWithRecords(args: string[], path: string | 'stdout', options: { count?: number; env?: Record<string, string>; nodeArgs?: string[] } = {}) {
  const env = { AUDIT_RECORDS: String(options.count ?? RECORDS), ...options.env };
  const sink = path === 'stdout' ? ['--audit-sink', 'stdout'] : ['--audit-file', path];
  return startCli([...args, ...sink], env, { nodeArgs: ['--import', RECORDS_HOOK, ...(options.nodeArgs ?? [])], stdio: true });
}

/** Resolves as soon as stderr says batch `n` is written (no polling: the process is acted on before its periodic write). */
function batchWritten(cli: CliProcess, n: number): Promise<void> {
  const line = `audit-records: batch ${n} written`;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${line}: not within 30 s\n${cli.logs.join('\n')}`)), 30_000);
    const check = () => {
      if (!cli.logs.includes(line)) return;
      clearTimeout(timer);
      cli.child.stderr!.off('data', check);
      resolve();
    };
    // After cli-process.ts's own listener, which has already split the chunk into cli.logs.
    cli.child.stderr!.on('data', check);
    check();
  });
}

/** Waits until the process has exited (after `end`, if given) and its stderr is read to the end. */
async function exitOf(cli: CliProcess, end?: () => void): Promise<number | string> {
  const closed = once(cli.child, 'close');
  end?.();
  const code = await cli.exited;
  await closed;
  return code;
}

describe('audit trail: every record reaches the file, however the process ends', () => {
  it(`HTTP: ${RECORDS} records (allowed, denied, limited), then SIGTERM: ${RECORDS} lines, mode 0600`, async () => {
    const path = auditPath();
    const cli = await startWithRecords(['--port', '0'], path, { env: { AUDIT_THEN: 'SIGTERM' } });
    try {
      assert.equal(await exitOf(cli), 0, cli.logs.join('\n'));
      const lines = records(path);
      assert.deepEqual(names(lines), batch(1), 'each record once, in order');
      assert.deepEqual(
        ['allowed', 'denied', 'limited'].map((d) => lines.filter((r) => r.decision === d).length),
        [334, 333, 333],
      );
      // Line breaks of every kind and terminal controls, in every record (the hook's group name).
      assert.ok(
        lines.every((r) => r.principal?.groups?.[0] === HOSTILE_GROUP),
        'a hostile group name parses back whole, inside its own record',
      );
      const text = readFileSync(path, 'utf8');
      for (const c of ['\r', '\u2028', '\u2029', '\u0085', '\u001b', '\u009b', '\u202e'])
        assert.ok(!text.includes(c), `U+${c.charCodeAt(0).toString(16)} written escaped`);
      assert.equal(statSync(path).mode & 0o777, 0o600);
    } finally {
      cli.child.kill('SIGKILL');
    }
  });

  it(`standard output as the sink: ${RECORDS} records, then SIGTERM: ${RECORDS} lines on stdout`, async () => {
    const cli = await startWithRecords(['--port', '0'], 'stdout', { env: { AUDIT_THEN: 'SIGTERM' } });
    try {
      let out = '';
      cli.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      assert.equal(await exitOf(cli), 0, cli.logs.join('\n'));
      const lines = out.split('\n').filter(Boolean);
      assert.deepEqual(
        lines.map((l) => (JSON.parse(l) as Line).principal?.name),
        batch(1),
      );
    } finally {
      cli.child.kill('SIGKILL');
    }
  });

  it(`stdio: ${RECORDS} records, then stdin's end: ${RECORDS} lines`, async () => {
    const path = auditPath();
    const cli = await startWithRecords(['--transport', 'stdio'], path);
    try {
      await batchWritten(cli, 1);
      assert.equal(await exitOf(cli, () => cli.child.stdin!.end()), 0, cli.logs.join('\n'));
      assert.deepEqual(names(records(path)), batch(1));
    } finally {
      cli.child.kill('SIGKILL');
    }
  });

  it(`an uncaught error after ${RECORDS} records: exit 1, ${RECORDS} lines`, async () => {
    const path = auditPath();
    // crash-on-signal.mjs: SIGUSR2 (sent by the records hook right after the batch) throws from a timer.
    const cli = await startWithRecords(['--port', '0'], path, { nodeArgs: ['--import', CRASH_HOOK], env: { AUDIT_THEN: 'SIGUSR2' } });
    try {
      assert.equal(await exitOf(cli), 1, cli.logs.join('\n'));
      assert.ok(cli.logs.some((l) => l.includes('uncaught error: exiting')));
      assert.deepEqual(names(records(path)), batch(1));
    } finally {
      cli.child.kill('SIGKILL');
    }
  });

  it('SIGHUP after the file was renamed (logrotate): a new file at the path takes the later records, none lost across both', async () => {
    const path = auditPath();
    const cli = await startWithRecords(['--port', '0'], path, { env: { AUDIT_MORE_ON_SIGUSR2: '1' } });
    try {
      await batchWritten(cli, 1);
      renameSync(path, `${path}.1`);
      cli.child.kill('SIGHUP');
      await eventually(() => existsSync(path), 10_000, 'a new file at the path');
      assert.equal(statSync(path).mode & 0o777, 0o600);
      cli.child.kill('SIGUSR2');
      await batchWritten(cli, 2);
      assert.equal(await exitOf(cli, () => cli.child.kill('SIGTERM')), 0, 'SIGHUP did not end the process');
      const [rotated, current] = [names(records(`${path}.1`)), names(records(path))];
      assert.deepEqual([...rotated, ...current].sort(), [...batch(1), ...batch(2)].sort(), 'every record in one of the two files, once');
      for (const name of batch(2)) assert.ok(current.includes(name), `${name}, written after the reopen, is in the new file`);
      assert.ok(cli.logs.some((l) => l.includes('SIGHUP: audit file reopened')));
    } finally {
      cli.child.kill('SIGKILL');
    }
  });

  it('oxp-server: records, then SIGTERM: every one in the file', async () => {
    const path = auditPath();
    const { command, args } = mcpStdioCommand();
    const cli = await startWithRecords(['oxp-server', '--mcp-command', `Local=${commandLine(command, args)}`, '--port', '0'], path, {
      count: 100,
      env: { AUDIT_THEN: 'SIGTERM' },
    });
    try {
      assert.equal(await exitOf(cli), 0, cli.logs.join('\n'));
      assert.deepEqual(names(records(path)), batch(1, 100));
    } finally {
      cli.child.kill('SIGKILL');
    }
  });
});

describe('audit trail: configuration reloads', () => {
  it('a reload leaves a record, applied with what changed or rejected, never a value from the file', async () => {
    const path = auditPath();
    const config = join(dir, 'bridge.yaml');
    const write = (text: string, port = 0) => writeFileSync(config, `port: ${port}\naudit: { path: "${path}" }\n${text}`);
    write(`logLevel: info\nupstream: { apiKey: "${CANARY}-1" }\n`);
    const cli = await startCli(['--config', config], {});
    try {
      write(`logLevel: debug\nupstream: { apiKey: "${CANARY}-2" }\n`);
      await eventually(() => records(path).length === 1, 15_000, 'the applied reload recorded');
      write(`logLevel: debug\nupstream: { apiKey: "${CANARY}-3", url: [unclosed\n`);
      await eventually(() => records(path).length === 2, 15_000, 'the rejected reload recorded');
      write(`logLevel: debug\nupstream: { apiKey: "${CANARY}-2" }\n`, 1);
      await eventually(() => records(path).length === 3, 15_000, 'the restart-only change recorded');
      assert.equal(await exitOf(cli, () => cli.child.kill('SIGTERM')), 0, cli.logs.join('\n'));
      const [applied, rejected, restart] = records(path);
      assert.deepEqual(applied, { ...applied, type: 'reload', outcome: 'applied', changes: ['logLevel', 'upstream.apiKey'], file: config });
      assert.deepEqual(rejected, { time: rejected!.time, type: 'reload', outcome: 'rejected', changes: [], file: config });
      assert.deepEqual(restart, { ...restart, outcome: 'applied', changes: ['port'], restartRequired: ['port'] });
      assert.ok(!readFileSync(path, 'utf8').includes(CANARY), 'no value from the file');
      assert.ok(
        cli.logs.some((l) => l.includes('configuration file rejected')),
        'why it was rejected is in the log',
      );
    } finally {
      cli.child.kill('SIGKILL');
    }
  });
});
