/**
 * The configuration files the repository ships (config/*.example.yaml) load and start as they are, with only their
 * variables supplied (the environment's, which beat the file: a port, the OXP server's URL, the API keys), through the
 * real CLI, and serve: a real MCP client lists and calls through the bridge's example, an OXP client through the
 * oxp-server's (its MCP servers are the reference servers of the devDependencies; its remote placeholder stays
 * unreachable and is said once). Nothing at warn or above but that placeholder.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { demoFixtureTools, startOxpFixture, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { startCli, type CliProcess } from '../helpers/cli-process.js';
import { eventually, OxpClient } from '../helpers/oxp-server-harness.js';

type LogLine = { level: number; msg: string; upstream?: string };
const parsed = (logs: string[]) => logs.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as LogLine);

describe('config/bridge.example.yaml', () => {
  let fixture: OxpFixtureServer;
  let cli: CliProcess;
  before(async () => {
    fixture = await startOxpFixture({ tools: demoFixtureTools() });
    cli = await startCli(['--config', 'config/bridge.example.yaml'], { OXP_URL: fixture.url, MCP_PORT: '0' });
  });
  after(async () => {
    await cli?.stop();
    await fixture?.close();
  });

  it('starts with OXP_URL and MCP_PORT supplied, and serves an MCP client', async () => {
    const client = new Client({ name: 'example-config', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(cli.url)));
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('Calculator_Add'), names.join());
      const sum = await client.callTool({ name: 'Calculator_Add', arguments: { a: 2, b: 3 } });
      assert.notEqual(sum.isError, true, JSON.stringify(sum));
    } finally {
      await client.close();
    }
    assert.deepEqual(
      parsed(cli.logs).filter((l) => l.level >= 40),
      [],
    );
  });
});

describe('config/oxp-server.example.yaml', () => {
  const KEY = 'example-config-key-2b7e4c9a1d3f';
  let cli: CliProcess;
  before(async () => {
    cli = await startCli(['oxp-server', '--config', 'config/oxp-server.example.yaml'], { OXP_SERVER_PORT: '0', OXP_SERVER_API_KEYS: KEY });
  });
  after(async () => {
    await cli?.stop();
  });

  it('starts with OXP_SERVER_PORT and OXP_SERVER_API_KEYS supplied: both local servers serve, the placeholder is said once', async () => {
    const anonymous = new OxpClient(cli.url);
    const client = new OxpClient(cli.url, { 'oxp-api-key': KEY });
    await eventually(
      async () => {
        const { body } = await anonymous.raw('/health');
        const states = (body.upstreams as { toolkit: string; state: string }[]).map((u) => `${u.toolkit}:${u.state}`);
        return states.join() === 'Everything:connected,Memory:connected,GitHub:reconnecting';
      },
      30_000,
      'Everything and Memory connected',
    );
    assert.equal((await anonymous.raw('/tools')).status, 401, 'the key supplied is required');
    const tools = await client.list();
    const add = tools.find((t) => t.id === 'Everything.add@1.0.0');
    assert.equal(add?.description, 'Adds two numbers.', 'renamed, and described by its new name');
    assert.ok(!tools.some((t) => String(t.id).startsWith('Everything.simulate')));
    assert.ok(tools.some((t) => String(t.id).startsWith('Memory.read_graph@')));
    const sum = await client.result('Everything.add', { a: 2, b: 3 });
    assert.match(JSON.stringify(sum.value), /5/);
    const warned = parsed(cli.logs).filter((l) => l.level >= 40);
    assert.deepEqual(
      warned.map((l) => `${l.upstream}: ${l.msg}`),
      ['GitHub: cannot connect to MCP server'],
    );
  });
});
