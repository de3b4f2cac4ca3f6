/**
 * The log is buffered (src/log.ts: lines gathered, one write per batch) and nothing in it is lost: the real CLI as a child process,
 * N calls, then the way it ends — SIGTERM or SIGINT (HTTP), stdin's end (stdio), an error nothing caught — and its
 * stderr holds exactly N per-call lines; a stderr nobody reads for a while blocks nothing. The oxp-server command too
 * (its per-call line is at debug).
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { Agent } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { mcpStdioCommand } from '../fixtures/mcp-fixture-server.js';
import { demoFixtureTools, startOxpFixture, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { MCP_HEADERS } from '../helpers/bridge-harness.js';
import { postOver } from '../helpers/it-http.js';
import { startCli, type CliProcess } from '../helpers/cli-process.js';
import { commandLine, eventually, OxpClient } from '../helpers/oxp-server-harness.js';

const CALLS = 100;
const CONCURRENCY = 8;
const VERSION = '2025-06-18';
const CRASH_HOOK = fileURLToPath(new URL('../helpers/crash-on-signal.mjs', import.meta.url));

type Entry = { msg?: string; level?: number; err?: { message?: string }; origin?: string };

/** Every stderr line parsed (each must be a whole JSON log record: none cut short by the exit). */
function entries(cli: CliProcess): Entry[] {
  return cli.logs
    .filter((l) => l.trim() !== '')
    .map((l) => {
      try {
        return JSON.parse(l) as Entry;
      } catch {
        throw new Error(`stderr line is not a whole log record: ${l}`);
      }
    });
}

const count = (cli: CliProcess, msg: string) => entries(cli).filter((e) => e.msg === msg).length;

/** `n` calls of `one(i)`, `CONCURRENCY` at a time. */
async function times(n: number, one: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) await one(next++);
    }),
  );
}

/** `calls` tool calls, CONCURRENCY at a time over kept-alive connections (postOver: thousands of fetches cost the test process seconds of CPU). */
async function callAll(url: string, calls = CALLS): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  try {
    await times(calls, async (i) => {
      const body = { jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'Calculator_Add', arguments: { a: i, b: 1 } } };
      const { status, messages, text } = await postOver(agent, url, { ...MCP_HEADERS, 'mcp-protocol-version': VERSION }, body);
      const reply = messages[0];
      const result = reply?.result as { isError?: boolean; content?: unknown[] } | undefined;
      assert.ok(
        result && !result.isError && result.content?.length,
        reply ? JSON.stringify(reply) : `no JSON-RPC answer: HTTP ${status} ${text.slice(0, 200)}`,
      );
    });
  } finally {
    agent.destroy();
  }
}

/** What a child's stderr (a socket pair, as Node makes them) holds before a write would block, generously: the socket's send buffer and what the reading stream takes in before it stops. */
function pipeCapacity(): number {
  const path = '/proc/sys/net/core/wmem_default';
  return (existsSync(path) ? Number(readFileSync(path, 'utf8')) : 212_992) + 2 * 65_536;
}

/** Sends `signal`, then waits until the process has exited and its stderr is read to the end. */
async function endWith(cli: CliProcess, signal: NodeJS.Signals): Promise<number | string> {
  const closed = once(cli.child, 'close');
  cli.child.kill(signal);
  const code = await cli.exited;
  await closed;
  return code;
}

describe('log flush: N calls leave N lines, however the process ends', () => {
  let fixture: OxpFixtureServer;
  before(async () => {
    fixture = await startOxpFixture({ tools: demoFixtureTools() });
  });
  after(async () => {
    await fixture?.close();
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`HTTP: ${CALLS} calls, then ${signal}: ${CALLS} per-call lines, then the shutdown's${signal === 'SIGTERM' ? " (and a lone call's line within seconds)" : ''}`, async () => {
      const cli = await startCli(['--oxp-url', fixture.url, '--port', '0', '--log-level', 'info'], {});
      try {
        if (signal === 'SIGTERM') {
          // A quiet bridge's line is not held until the buffer fills: the periodic flush writes it (every second).
          await callAll(cli.url, 1);
          await eventually(() => count(cli, 'tool call') === 1, 10_000, "the one call's line on stderr");
        }
        await callAll(cli.url);
        assert.equal(await endWith(cli, signal), 0, cli.logs.join('\n'));
        assert.equal(count(cli, 'tool call'), signal === 'SIGTERM' ? CALLS + 1 : CALLS);
        assert.equal(count(cli, 'drained: no request in flight'), 1, 'the lines written while stopping are there too');
      } finally {
        cli.child.kill('SIGKILL');
      }
    });
  }

  it('HTTP, stderr not read for a while (a pipe nobody reads): calls keep being answered; once it is read, every line is there', async () => {
    const cli = await startCli(['--oxp-url', fixture.url, '--port', '0', '--log-level', 'info'], {});
    try {
      cli.child.stderr!.pause(); // from here the pipe fills: the bridge's writes meet EAGAIN and lines wait in memory
      const calls = 3000;
      await callAll(cli.url, calls);
      cli.child.stderr!.resume();
      assert.equal(await endWith(cli, 'SIGTERM'), 0, cli.logs.slice(-20).join('\n'));
      assert.equal(count(cli, 'tool call'), calls, 'none dropped: the backlog stayed under the bound');
      const bytes = cli.logs.reduce((n, l) => n + l.length + 1, 0);
      assert.ok(bytes > 2 * pipeCapacity(), `${bytes} bytes logged: more than the pipe holds, so the writes had to wait`);
    } finally {
      cli.child.kill('SIGKILL');
    }
  });

  it(`stdio: ${CALLS} calls written, then stdin's end: ${CALLS} answers and ${CALLS} per-call lines`, async () => {
    const cli = await startCli(['--transport', 'stdio', '--oxp-url', fixture.url, '--log-level', 'info'], {}, { stdio: true });
    try {
      let answers = 0;
      cli.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (answers += chunk.split('\n').length - 1));
      const send = (message: Record<string, unknown>) => cli.child.stdin!.write(`${JSON.stringify(message)}\n`);
      send({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'log-flush', version: '1' } },
      });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      for (let i = 1; i <= CALLS; i++) send({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'Calculator_Add', arguments: { a: i, b: 1 } } });
      // Ended at once: the bridge answers what it read, then exits.
      const closed = once(cli.child, 'close');
      cli.child.stdin!.end();
      assert.equal(await cli.exited, 0, cli.logs.join('\n'));
      await closed;
      assert.equal(answers, CALLS + 1, 'initialize and every call answered');
      assert.equal(count(cli, 'tool call'), CALLS);
    } finally {
      cli.child.kill('SIGKILL');
    }
  });

  for (const kind of ['throw', 'reject'] as const) {
    it(`an uncaught error (${kind === 'throw' ? 'thrown' : 'a rejection'}) after ${CALLS} calls: exit 1, ${CALLS} per-call lines and the fatal line`, async () => {
      const cli = await startCli(
        ['--oxp-url', fixture.url, '--port', '0', '--log-level', 'info'],
        { CRASH_KIND: kind },
        { nodeArgs: ['--import', CRASH_HOOK] },
      );
      try {
        await callAll(cli.url);
        assert.equal(await endWith(cli, 'SIGUSR2'), 1, cli.logs.join('\n'));
        assert.equal(count(cli, 'tool call'), CALLS);
        const fatal = entries(cli).filter((e) => e.level === 60);
        assert.equal(fatal.length, 1, cli.logs.join('\n'));
        assert.match(fatal[0]!.err?.message ?? '', new RegExp(`crash requested by the test \\(${kind === 'throw' ? 'throw' : 'rejection'}\\)`));
        assert.equal(fatal[0]!.origin, kind === 'throw' ? 'uncaughtException' : 'unhandledRejection');
        assert.equal(entries(cli).at(-1)?.level, 60, 'the fatal line is the last');
      } finally {
        cli.child.kill('SIGKILL');
      }
    });
  }

  it(`oxp-server at debug: ${CALLS} calls, then SIGTERM: ${CALLS} per-call lines`, async () => {
    const { command, args } = mcpStdioCommand();
    const cli = await startCli(['oxp-server', '--mcp-command', `Local=${commandLine(command, args)}`, '--port', '0', '--log-level', 'debug'], {});
    try {
      const client = new OxpClient(cli.url);
      await eventually(
        async () => (await client.raw('/tools')).status === 200 && (await client.list()).some((t) => t.id === 'Local.add@0.9.1'),
        30_000,
        'Local.add listed',
      );
      await times(CALLS, async (i) => assert.deepEqual((await client.result('Local.add', { a: i, b: 1 })).value, { sum: i + 1 }));
      assert.equal(await endWith(cli, 'SIGTERM'), 0, cli.logs.join('\n'));
      assert.equal(count(cli, 'OXP call'), CALLS);
    } finally {
      cli.child.kill('SIGKILL');
    }
  });
});
