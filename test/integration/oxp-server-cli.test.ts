/**
 * The `oxp-server` subcommand as a real process: `mcp-oxp-bridge oxp-server
 * --mcp-command …`, the config file selecting it (`oxpServer.enabled`), its
 * --help, and configuration errors (exit code 2, nothing listening).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { mcpStdioCommand, startMcpHttpFixture } from '../fixtures/mcp-fixture-server.js';
import { REPO_ROOT } from '../helpers/it-bridge.js';
import { commandLine, OxpClient, writeConfigFile } from '../helpers/oxp-server-harness.js';

const CLI = ['--import', 'tsx', 'src/cli.ts'];
/** The child's environment: nothing that could configure the bridge. */
const ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(OXP_|MCP_|BRIDGE_|LOG_LEVEL$|NODE_TEST)/.test(k)));

function run(args: string[]): ChildProcess {
  return spawn(process.execPath, [...CLI, ...args], { cwd: REPO_ROOT, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
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
      assert.ok((await client.list()).some((t) => t.id === 'Local.add@0.9.1'));
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
      assert.equal((await client.result('Web.which_era@3', {})).value, 'modern');
    } finally {
      child.kill('SIGTERM');
      await done;
      await fixture.close();
    }
  });

  it('prints its own --help', async () => {
    const { code, stderr } = await exited(run(['oxp-server', '--help']));
    assert.equal(code, 0);
    assert.match(stderr, /^Usage: mcp-oxp-bridge oxp-server \[options\]/);
    assert.match(stderr, /--mcp-url \[TOOLKIT=\]URL/);
    const main = await exited(run(['--help']));
    assert.match(main.stderr, /mcp-oxp-bridge oxp-server \[options\]/);
  });

  it('exits with code 2 and a clear message on configuration errors', async () => {
    const none = await exited(run(['oxp-server', '--port', '0']));
    assert.equal(none.code, 2);
    assert.match(none.stderr, /oxp-server needs at least one MCP server/);
    const bad = await exited(run(['oxp-server', '--mcp-url', 'not-a-url']));
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /oxpServer\.upstreams\.0\.url \(from flag --mcp-url\)/);
    const exposed = await exited(run(['oxp-server', '--mcp-url', 'http://127.0.0.1:9/mcp', '--host', '0.0.0.0']));
    assert.equal(exposed.code, 2);
    assert.match(exposed.stderr, /without authentication/);
  });
});
