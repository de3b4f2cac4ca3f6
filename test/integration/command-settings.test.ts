/**
 * Every settings path of both commands, as real processes: a flag, an environment variable and the config file each
 * set the listen port and the inbound credentials, for the MCP bridge and for the oxp-server — chosen by its
 * subcommand or by `oxpServer.enabled` in the config file. The oxp-server chosen by its file once ignored its own
 * variables and flags and served GET /tools to anyone (issue 30's security defect): keys from the environment must
 * refuse a call without a key and accept one with it, whichever way the command was chosen.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startMcpHttpFixture, type McpHttpFixture } from '../fixtures/mcp-fixture-server.js';
import { startCli } from '../helpers/cli-process.js';
import { eventually, writeConfigFile } from '../helpers/oxp-server-harness.js';

const KEY = 'settings-key-0123456789abcdef0123456789';
const TOKEN = 'settings-token-0123456789abcdef01234567';

/** A port free right now on loopback (the child listens on it a moment later). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

type Source = 'flag' | 'env' | 'file';
const SOURCES: readonly Source[] = ['flag', 'env', 'file'];

describe('settings reach the command from every path', () => {
  let fixture: McpHttpFixture;
  before(async () => {
    fixture = await startMcpHttpFixture({ version: '1.0.0' });
  });
  after(async () => {
    await fixture?.close();
  });

  /** The oxp-server's port and API key set from `source`; the command chosen by its subcommand or by the file alone. */
  async function startOxpServer(chosenBy: 'subcommand' | 'file', source: Source, port: number, host?: string) {
    const file: Record<string, unknown> = { enabled: chosenBy === 'file', upstreams: [{ toolkit: 'Web', url: fixture.url }], ...(host ? { host } : {}) };
    const args: string[] = chosenBy === 'subcommand' ? ['oxp-server'] : [];
    const env: Record<string, string> = {};
    if (source === 'flag') args.push('--port', String(port), '--api-key', KEY);
    if (source === 'env') Object.assign(env, { OXP_SERVER_PORT: String(port), OXP_SERVER_API_KEYS: KEY });
    if (source === 'file') Object.assign(file, { port, apiKeys: [KEY] });
    args.push('--config', writeConfigFile({ oxpServer: file }));
    return startCli(args, env);
  }

  for (const chosenBy of ['subcommand', 'file'] as const) {
    for (const source of SOURCES) {
      it(`oxp-server chosen by its ${chosenBy}: port and API key from the ${source} apply`, async () => {
        const port = await freePort();
        const cli = await startOxpServer(chosenBy, source, port);
        try {
          assert.equal(new URL(cli.url).port, String(port), 'the port set applies');
          assert.ok(
            cli.logs.some((line) => /"auth":\["api-key"\]/.test(line)),
            `the log names API-key authentication:\n${cli.logs.join('\n')}`,
          );
          const without = await fetch(`${cli.url}/tools`);
          assert.equal(without.status, 401, 'no key: refused');
          await eventually(
            async () => (await fetch(`${cli.url}/tools`, { headers: { 'oxp-api-key': KEY } })).status === 200,
            30_000,
            'GET /tools with the key',
          );
          const call = await fetch(`${cli.url}/tools/call`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ tool_id: 'Web.which_era@1', input: {} }),
          });
          assert.equal(call.status, 401, 'a call without a key: refused');
          assert.ok(!cli.logs.join('\n').includes(KEY), 'the key never reaches the log');
        } finally {
          await cli.stop();
        }
      });
    }
  }

  it('oxp-server chosen by its file, listening on 0.0.0.0 with keys from the environment: starts, and requires a key', async () => {
    const port = await freePort();
    const cli = await startOxpServer('file', 'env', port, '0.0.0.0');
    try {
      const url = `http://127.0.0.1:${port}`;
      assert.equal((await fetch(`${url}/tools`)).status, 401);
      // With the key: the list, once the MCP server has listed its tools (503 until then).
      await eventually(async () => (await fetch(`${url}/tools`, { headers: { 'oxp-api-key': KEY } })).status === 200, 30_000, 'GET /tools with the key');
    } finally {
      await cli.stop();
    }
  });

  for (const source of SOURCES) {
    it(`MCP bridge: port from the ${source} applies, and bearer tokens (environment or file) are required`, async () => {
      const port = await freePort();
      const args: string[] = [];
      const env: Record<string, string> = {};
      const file: Record<string, unknown> = {};
      if (source === 'flag') args.push('--port', String(port));
      if (source === 'env') env.MCP_PORT = String(port);
      if (source === 'file') file.port = port;
      // Tokens are secrets: the environment or the file only (flags show in ps).
      if (source === 'file') file.auth = { tokens: [TOKEN] };
      else env.MCP_AUTH_TOKENS = TOKEN;
      args.push('--config', writeConfigFile(file));
      const cli = await startCli(args, env);
      try {
        assert.equal(new URL(cli.url).port, String(port));
        const list = (token?: string) =>
          fetch(cli.url, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              'mcp-protocol-version': '2025-06-18',
              ...(token ? { authorization: `Bearer ${token}` } : {}),
            },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
          });
        assert.equal((await list()).status, 401);
        assert.equal((await list(TOKEN)).status, 200);
      } finally {
        await cli.stop();
      }
    });
  }
});
