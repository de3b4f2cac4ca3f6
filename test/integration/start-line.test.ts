/**
 * The line a person reads when a command starts: with stderr a terminal (a pseudo-terminal made by util-linux's
 * `script`, as a person's shell has), both commands write one plain line after the JSON log — what they serve,
 * where their clients reach them, the console; with stderr a pipe (a log reader), JSON lines only.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { mcpStdioCommand } from '../fixtures/mcp-fixture-server.js';
import { cleanChildEnv, REPO_ROOT } from '../helpers/it-bridge.js';
import { commandLine } from '../helpers/oxp-server-harness.js';
import { startCli } from '../helpers/cli-process.js';
import { cliArgs } from '../helpers/ts-entry.js';

const SCRIPT = spawnSync('script', ['--version']).status === 0;
const skip = SCRIPT || process.env.CI === 'true' ? false : "util-linux's script is not installed (it makes the terminal)";

/** The CLI with a terminal for stdin, stdout and stderr, until a line matches `until`; then stopped. Resolves with its lines. */
async function inTerminal(args: string[], until: RegExp): Promise<string[]> {
  // -q: no banner; -e: the command's exit status; -f: output at once; -c: the command. /dev/null: no typescript file.
  const child = spawn('script', ['-qefc', commandLine(process.execPath, cliArgs(args)), '/dev/null'], {
    cwd: REPO_ROOT,
    env: cleanChildEnv(),
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = () => output.split(/\r?\n/).filter(Boolean);
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no line matching ${until} within 60 s:\n${output}`)), 60_000);
      const poll = setInterval(() => {
        if (!lines().some((l) => until.test(l))) return;
        clearInterval(poll);
        clearTimeout(timer);
        resolve();
      }, 50);
      void exited.then(() => (clearInterval(poll), clearTimeout(timer), reject(new Error(`exited before ${until}:\n${output}`))));
    });
  } finally {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // gone already
    }
    await exited;
  }
  return lines();
}

const isJson = (line: string) => {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
};

describe('the start line', { skip }, () => {
  it('the bridge at a terminal: what it serves, the MCP URL, the console, after the JSON log', async () => {
    // Before: JSON lines only; nothing said where the MCP endpoint and the console were but the log's "url" fields.
    const lines = await inTerminal(['--port', '0'], /^mcp-oxp-bridge: serving/);
    const plain = lines.filter((l) => !isJson(l));
    assert.deepEqual(plain.length, 1, lines.join('\n'));
    assert.match(
      plain[0]!,
      /^mcp-oxp-bridge: serving the demo toolkit \(6 tools\) to MCP clients at http:\/\/127\.0\.0\.1:(\d+)\/mcp — console http:\/\/127\.0\.0\.1:\1\/console$/,
    );
    assert.ok(lines.indexOf(plain[0]!) > lines.findIndex((l) => l.includes('"msg":"MCP Streamable HTTP endpoint listening"')), 'after the listening line');
  });

  it('the oxp-server at a terminal: its MCP servers, the OXP URL, the console', async () => {
    const { command, args } = mcpStdioCommand();
    const lines = await inTerminal(
      ['oxp-server', '--port', '0', '--mcp-command', `Local=${commandLine(command, args)}`],
      /^mcp-oxp-bridge oxp-server: serving/,
    );
    const plain = lines.filter((l) => !isJson(l));
    assert.deepEqual(plain.length, 1, lines.join('\n'));
    assert.match(
      plain[0]!,
      /^mcp-oxp-bridge oxp-server: serving the MCP server Local \(connecting\) to OXP clients at http:\/\/127\.0\.0\.1:(\d+) — console http:\/\/127\.0\.0\.1:\1\/console$/,
    );
  });
});

it('stderr a pipe (a log reader): JSON lines only', async () => {
  const cli = await startCli(['--port', '0', '--log-level', 'info'], {});
  await cli.stop();
  assert.ok(cli.logs.length > 0);
  for (const line of cli.logs) assert.ok(isJson(line), `a log record: ${line}`);
  assert.ok(!cli.logs.some((l) => l.includes('serving the demo toolkit')));
});
