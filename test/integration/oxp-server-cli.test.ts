/**
 * The `oxp-server` subcommand as a real process: `mcp-oxp-bridge oxp-server
 * --mcp-command …`, the config file selecting it (`oxpServer.enabled`), its
 * --help, and configuration errors (exit code 2, nothing listening).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { mcpStdioCommand, startMcpHttpFixture } from '../fixtures/mcp-fixture-server.js';
import { REPO_ROOT } from '../helpers/it-bridge.js';
import { commandLine, eventually, OxpClient, writeConfigFile } from '../helpers/oxp-server-harness.js';
import { cliArgs } from '../helpers/ts-entry.js';

/** The child's environment: nothing that could configure the bridge. */
const ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(OXP_|MCP_|BRIDGE_|LOG_LEVEL$|NODE_TEST)/.test(k)));

function run(args: string[]): ChildProcess {
  return spawn(process.execPath, cliArgs(args), { cwd: REPO_ROOT, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Resolves with the URL the child logs when it listens (its logs are JSON lines on stderr). */
function listeningUrl(child: ChildProcess, timeoutMs = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the oxp-server did not start listening')), timeoutMs);
    createInterface({ input: child.stderr! }).on('line', (line) => {
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === 'OXP server listening' && entry.url) {
          clearTimeout(timer);
          resolve(entry.url);
        }
      } catch {
        // not a log line
      }
    });
    child.once('exit', (code) => reject(new Error(`the oxp-server exited (${code}) before listening`)));
  });
}

function exited(child: ChildProcess): Promise<{ code: number | null; stderr: string; stdout: string }> {
  let stderr = '';
  let stdout = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr, stdout })));
}

describe('mcp-oxp-bridge oxp-server (the CLI)', () => {
  it('serves a stdio MCP server given by --mcp-command, and stops on SIGTERM', async () => {
    const { command, args } = mcpStdioCommand();
    const child = run(['oxp-server', '--mcp-command', `Local=${commandLine(command, args)}`, '--port', '0']);
    const done = exited(child);
    try {
      const client = new OxpClient(await listeningUrl(child));
      // It listens before the upstream has connected: the tools appear once it has.
      await eventually(async () => (await client.listOrNone()).some((t) => t.id === 'Local.add@0.9.1'), 30_000, 'Local.add listed');
      assert.deepEqual((await client.result('Local.add', { a: 40, b: 2 })).value, { sum: 42 });
    } finally {
      child.kill('SIGTERM');
    }
    const { code, stdout } = await done;
    assert.equal(code, 0);
    assert.equal(stdout, '', 'nothing but logs, and logs go to stderr');
  });

  it('is selected by oxpServer.enabled in the config file', async () => {
    const fixture = await startMcpHttpFixture({ version: '3.0.0' });
    const child = run(['--config', writeConfigFile({ oxpServer: { enabled: true, port: 0, upstreams: [{ toolkit: 'Web', url: fixture.url }] } })]);
    const done = exited(child);
    try {
      const client = new OxpClient(await listeningUrl(child));
      await eventually(async () => (await client.raw('/health')).status === 200, 30_000, '/health 200');
      assert.equal((await client.result('Web.which_era@3', {})).value, 'modern');
    } finally {
      child.kill('SIGTERM');
      await done;
      await fixture.close();
    }
  });

  it('prints its own --help', async () => {
    const [{ code, stdout }, main] = await Promise.all([exited(run(['oxp-server', '--help'])), exited(run(['--help']))]);
    assert.equal(code, 0);
    assert.match(stdout, /^Usage: mcp-oxp-bridge oxp-server \[options\]/);
    assert.match(stdout, /--mcp-url \[TOOLKIT=\]URL/);
    assert.match(main.stdout, /mcp-oxp-bridge oxp-server \[options\]/);
  });

  it('exits with code 2 and a clear message on configuration errors', async () => {
    // Independent processes: started together, so the file costs one process start-up instead of four.
    const [none, bad, badName, exposed] = await Promise.all([
      exited(run(['oxp-server', '--port', '0'])),
      exited(run(['oxp-server', '--mcp-url', 'not-a-url'])),
      exited(run(['oxp-server', '--mcp-url', 'Bad-Name=http://127.0.0.1:9/mcp'])),
      exited(run(['oxp-server', '--mcp-url', 'http://127.0.0.1:9/mcp', '--host', '0.0.0.0'])),
    ]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /oxp-server needs at least one MCP server/);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--mcp-url "not-a-url": expected \[TOOLKIT=\]URL with an http:\/\/ or https:\/\/ URL/);
    assert.equal(badName.code, 2);
    assert.match(badName.stderr, /the toolkit name "Bad-Name" may only use letters, digits and _/);
    assert.equal(exposed.code, 2);
    assert.match(exposed.stderr, /without authentication/);
  });

  it('listens at once although its MCP server never speaks MCP: /health per upstream, 503 with can_retry for its calls; stopping it stops that server', async () => {
    // A "server" that reads stdin and never answers, nor exits when stdin closes; it says its pid in a file.
    const pidFile = join(mkdtempSync(join(tmpdir(), 'silent-mcp-')), 'pid');
    const silent = commandLine(process.execPath, [
      '-e',
      `require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); process.stdin.resume(); setInterval(() => {}, 1000)`,
    ]);
    const started = Date.now();
    const child = run(['oxp-server', '--mcp-command', `Silent=${silent}`, '--port', '0', '--connect-timeout-ms', '20000']);
    const done = exited(child);
    try {
      const client = new OxpClient(await listeningUrl(child));
      const health = await client.raw('/health');
      assert.ok(Date.now() - started < 15_000, 'listening well before the connect timeout');
      assert.equal(health.status, 503);
      assert.deepEqual(health.body, { status: 'unavailable', upstreams: [{ toolkit: 'Silent', state: 'connecting', tools: 0 }] });
      const call = await client.call('Silent.anything', {});
      assert.equal(call.status, 503);
      assert.equal(call.body.can_retry, true);
      assert.ok(Number(call.headers.get('retry-after')) >= 1);
      assert.match(String(call.body.message), /toolkit Silent has not connected yet/);
      // Wrong methods: 405 with Allow.
      const wrong = await client.raw('/tools/call');
      assert.equal(wrong.status, 405);
      assert.equal(wrong.headers.get('allow'), 'POST');
      assert.equal((await client.raw('/tools', { method: 'POST', body: '{}' })).status, 405);
      assert.equal((await client.raw('/nope')).status, 404);
      // The child has started (it may be the SDK's era probe or the session's process) before the stop below.
      await eventually(() => existsSync(pidFile), 10_000, 'the MCP server child started');
    } finally {
      child.kill('SIGTERM');
      await done;
    }
    // Shut down while the server was still "connecting": the child it started does not outlive it.
    const pid = Number(readFileSync(pidFile, 'utf8'));
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    if (alive()) process.kill(pid, 'SIGKILL'); // not to leave it behind when the assertion fails
    assert.equal(alive(), false, 'the MCP server child was still running after oxp-server exited');
  });
});
