/**
 * The line a person reads when a command starts: with stderr a terminal (a pseudo-terminal made by util-linux's
 * `script`, as a person's shell has), both commands write one plain line after the JSON log — what they serve,
 * where their clients reach them, the console; with stderr a pipe (a log reader), JSON lines only.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mcpStdioCommand } from '../fixtures/mcp-fixture-server.js';
import { startCli } from '../helpers/cli-process.js';
import { commandLine } from '../helpers/oxp-server-harness.js';
import { cliInTerminal, isJsonLine, NO_TERMINAL } from '../helpers/terminal.js';

/** The CLI at a terminal until its start line; then stopped. Resolves with every line the terminal showed. */
async function startLines(args: string[], startLine: RegExp): Promise<string[]> {
  const cli = cliInTerminal(args);
  try {
    await cli.waitFor(startLine);
  } finally {
    await cli.stop();
  }
  return cli.lines();
}

describe('the start line', { skip: NO_TERMINAL }, () => {
  it('the bridge at a terminal: what it serves, the MCP URL, the console, after the JSON log', async () => {
    // Before: JSON lines only; nothing said where the MCP endpoint and the console were but the log's "url" fields.
    const lines = await startLines(['--port', '0'], /^mcp-oxp-bridge: serving/);
    const plain = lines.filter((l) => !isJsonLine(l));
    assert.deepEqual(plain.length, 1, lines.join('\n'));
    assert.match(
      plain[0]!,
      /^mcp-oxp-bridge: serving the demo toolkit \(6 tools\) to MCP clients at http:\/\/127\.0\.0\.1:(\d+)\/mcp — console http:\/\/127\.0\.0\.1:\1\/console$/,
    );
    assert.ok(lines.indexOf(plain[0]!) > lines.findIndex((l) => l.includes('"msg":"MCP Streamable HTTP endpoint listening"')), 'after the listening line');
  });

  it('the oxp-server at a terminal: its MCP servers as their tools name them, with their tools, the OXP URL, the console', async () => {
    const { command, args } = mcpStdioCommand();
    const lines = await startLines(
      ['oxp-server', '--port', '0', '--mcp-command', `Local=${commandLine(command, args)}`],
      /^mcp-oxp-bridge oxp-server: serving/,
    );
    const plain = lines.filter((l) => !isJsonLine(l));
    assert.deepEqual(plain.length, 1, lines.join('\n'));
    assert.match(
      plain[0]!,
      /^mcp-oxp-bridge oxp-server: serving the MCP server Local \(\d+ tools\) to OXP clients at http:\/\/127\.0\.0\.1:(\d+) — console http:\/\/127\.0\.0\.1:\1\/console$/,
    );
  });

  it("the oxp-server names an MCP server given no toolkit by the server's own name, as its tool ids and /health do, in the start line and its log lines", async () => {
    // Before: by the command that runs it ("serving the MCP server node (connecting)", "upstreams":["node"]).
    const { command, args } = mcpStdioCommand({ name: 'Everything Demo' });
    const lines = await startLines(['oxp-server', '--port', '0', '--mcp-command', commandLine(command, args)], /^mcp-oxp-bridge oxp-server: serving/);
    const plain = lines.filter((l) => !isJsonLine(l));
    assert.match(plain[0]!, /^mcp-oxp-bridge oxp-server: serving the MCP server EverythingDemo \(\d+ tools\) to OXP clients at /, lines.join('\n'));
    const logged = lines.filter(isJsonLine).map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(logged.find((l) => l.msg === 'connected to MCP server')?.upstream, 'EverythingDemo', lines.join('\n'));
    assert.equal(logged.find((l) => l.msg === 'OXP server listening')?.upstreams, 1);
    assert.ok(!lines.some((l) => l.includes(JSON.stringify(command))), 'the command named as the upstream');
  });

  it('the oxp-server at a terminal, its MCP server not reachable: where it is, and why', async () => {
    const lines = await startLines(
      ['oxp-server', '--port', '0', '--connect-timeout-ms', '2000', '--mcp-command', `${process.execPath} -e "process.exit(3)"`],
      /^mcp-oxp-bridge oxp-server: serving/,
    );
    const plain = lines.filter((l) => !isJsonLine(l));
    assert.match(
      plain[0]!,
      /^mcp-oxp-bridge oxp-server: serving the MCP server \S*node\S* \(not reachable yet: .+; retrying\) to OXP clients at /,
      lines.join('\n'),
    );
  });
});

it('stderr a pipe (a log reader): JSON lines only', async () => {
  const cli = await startCli(['--port', '0', '--log-level', 'info'], {});
  await cli.stop();
  assert.ok(cli.logs.length > 0);
  for (const line of cli.logs) assert.ok(isJsonLine(line), `a log record: ${line}`);
  assert.ok(!cli.logs.some((l) => l.includes('serving the demo toolkit')));
});
