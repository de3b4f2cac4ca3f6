/**
 * Rough edges of the MCP face, each through the real CLI as a child process:
 *
 * - a tools/call written just before the host closes stdin is answered before
 *   the process exits (the SDK's stdio transport closes on stdin's end and
 *   aborts what is running; the bridge holds the end back until answered);
 * - a stdio host that connected while the OXP server was down receives
 *   notifications/tools/list_changed when the catalog first loads, then lists
 *   the tools;
 * - a port already in use is one line naming it and the setting, exit code 2,
 *   for the bridge and for the oxp-server.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { mcpStdioCommand } from '../fixtures/mcp-fixture-server.js';
import { startOxpFixture, type FixtureTool } from '../fixtures/oxp-fixture-server.js';
import { REPO_ROOT, stdioCommand } from '../helpers/it-bridge.js';
import { commandLine } from '../helpers/oxp-server-harness.js';
import { cliArgs } from '../helpers/ts-entry.js';

const slowEcho = (delayMs: number): FixtureTool => ({
  id: 'Edge.SlowEcho',
  name: 'Edge_SlowEcho',
  description: 'Echoes its text after a delay.',
  version: '1.0.0',
  input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  output_schema: { type: 'string' },
  handler: (req) => ({ delayMs, then: { value: String(req.input?.['text']) } }),
});

/** A loopback TCP port held open (to be "in use"), or released for a server to take later. */
async function holdPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: (server.address() as AddressInfo).port, server };
}

function runCli(args: string[]): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(OXP_|MCP_|BRIDGE_|LOG_LEVEL$|NODE_TEST)/.test(k)));
  const child = spawn(process.execPath, cliArgs(args), { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, stdout });
    }),
  );
}

describe('MCP face rough edges (the CLI as a child process)', { timeout: 180_000 }, () => {
  it('stdio: a tools/call written just before stdin closes is answered, then the process exits 0', async () => {
    const fixture = await startOxpFixture({ tools: [slowEcho(700)] });
    try {
      const cmd = stdioCommand(fixture.url);
      const child = spawn(cmd.command, cmd.args, { cwd: cmd.cwd, env: cmd.env, stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.resume();
      const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
      const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'edge', version: '1' } },
      });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'Edge_SlowEcho', arguments: { text: 'answered before exit' } } });
      child.stdin.end(); // the host hangs up while the call runs upstream
      const [code] = await exited;
      clearTimeout(killer);
      const messages = stdout
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as { id?: number; result?: { content?: { text?: string }[]; isError?: boolean } });
      const call = messages.find((m) => m.id === 2);
      assert.ok(call, `no answer to the tools/call before exit; stdout: ${stdout}`);
      assert.equal(call.result?.isError, undefined);
      assert.equal(call.result?.content?.[0]?.text, 'answered before exit');
      assert.equal(code, 0);
    } finally {
      await fixture.close();
    }
  });

  it('stdio: a host that started before the OXP server gets tools/list_changed when the catalog first loads, then lists the tools', async () => {
    const reserved = await holdPort();
    reserved.server.close(); // nothing listens there until the fixture starts
    await once(reserved.server, 'close');
    const oxpUrl = `http://127.0.0.1:${reserved.port}`;
    const cmd = stdioCommand(oxpUrl, 'silent', ['--catalog-refresh-seconds', '1']);
    const client = new Client({ name: 'edge-host', version: '1.0.0' });
    let notified!: () => void;
    const listChanged = new Promise<void>((resolve) => (notified = resolve));
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => notified());
    await client.connect(new StdioClientTransport({ command: cmd.command, args: cmd.args, cwd: cmd.cwd, env: cmd.env, stderr: 'ignore' }));
    let fixture: Awaited<ReturnType<typeof startOxpFixture>> | undefined;
    try {
      assert.equal(client.getServerCapabilities()?.tools?.listChanged, true, 'stdio advertises tools.listChanged');
      await assert.rejects(client.listTools(), 'no catalog yet: tools/list fails');
      fixture = await startOxpFixture({ tools: [slowEcho(0)], port: reserved.port });
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        listChanged,
        new Promise(
          (_, reject) => (timer = setTimeout(() => reject(new Error('no notifications/tools/list_changed within 30 s of the OXP server starting')), 30_000)),
        ),
      ]);
      clearTimeout(timer);
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ['Edge_SlowEcho'],
      );
    } finally {
      await client.close();
      await fixture?.close();
    }
  });

  it('a port in use: one line naming the port and the setting, exit code 2 (bridge and oxp-server)', async () => {
    const held = await holdPort();
    try {
      const { command, args } = mcpStdioCommand();
      const cases = [
        { args: ['--port', String(held.port), '--log-level', 'silent'], setting: 'MCP_PORT' },
        {
          args: ['oxp-server', '--mcp-command', `Fx=${commandLine(command, args)}`, '--port', String(held.port), '--log-level', 'silent'],
          setting: 'OXP_SERVER_PORT',
        },
      ];
      for (const c of cases) {
        const { code, stderr, stdout } = await runCli(c.args);
        assert.equal(code, 2, `exit code (stderr: ${stderr})`);
        assert.equal(stdout, '');
        assert.equal(
          stderr,
          `mcp-oxp-bridge: cannot listen on 127.0.0.1:${held.port}: the port is already in use; choose another with --port or ${c.setting}\n`,
        );
      }
    } finally {
      held.server.close();
    }
  });
});
