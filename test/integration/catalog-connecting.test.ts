/**
 * "Connecting" is not "empty" (issue 37): a forward bridge started beside an oxp-server (Compose, one pod) whose MCP
 * servers take a while to start. Both are the real CLI as child processes, the MCP servers real stdio children of the
 * oxp-server that answer nothing until the test lets them (a file appears), so nothing here waits on a guess of time.
 *
 * - the oxp-server answers `GET /tools` 503 with `Retry-After` until one of its MCP servers has listed its tools,
 *   then 200 with those tools and the `Catalog-Pending` header while another has not;
 * - the bridge is not ready on a catalog it never loaded (/readyz 503, the reason in its own words), and a call
 *   meanwhile gets "not loaded yet, try again", never "Unknown tool";
 * - it loads each catalog within seconds of the tools being there (a short backoff, not its 300 s refresh period),
 *   and a connected MCP client (SDK v2, 2026-07-28, subscriptions/listen) is sent tools/list_changed each time, then
 *   lists the tools;
 * - with several OXP upstreams, one down at start delays none of the others, a name only it may hold is "not known
 *   yet", and its tools arrive within seconds of it coming up.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { runDoctor } from '../../src/commands/doctor/doctor.js';
import { startBridge, type RunningBridge } from '../../src/commands/forward.js';
import { loadConfig, type LoadedConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/platform/log.js';
import { startOxpFixture, type FixtureTool, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { MCP_HEADERS, readMessages } from '../helpers/bridge-harness.js';
import { mcpStdioCommand } from '../fixtures/mcp-fixture-server.js';
import { startCli, type CliProcess } from '../helpers/cli-process.js';
import { recordTransport, WireLog } from '../helpers/it-clients.js';
import { assertValidServerMessage } from '../helpers/mcp-schema.js';
import { commandLine, eventually, OxpClient } from '../helpers/oxp-server-harness.js';

interface Readiness {
  ready: boolean;
  upstreams: Record<string, { ready: boolean; tools: number; pending?: number; lastError?: string }>;
}

async function readyz(bridge: CliProcess): Promise<{ status: number; body: Readiness }> {
  const res = await fetch(new URL('/readyz', bridge.url));
  return { status: res.status, body: (await res.json()) as Readiness };
}

/** What `doctor --url` prints about a running bridge (in this process: its wording is what is checked). */
async function doctorSays(bridge: CliProcess): Promise<string> {
  const out: string[] = [];
  await runDoctor(['--url', new URL('/mcp', bridge.url).href], {}, (line) => out.push(line));
  return out.join('\n');
}

/** The JSON-RPC error a request was answered with (the SDK client rejects with it). */
async function rejection(request: Promise<unknown>): Promise<{ code?: number; message: string }> {
  try {
    await request;
  } catch (error) {
    return error as { code?: number; message: string };
  }
  return assert.fail('the request was answered, not refused');
}

describe('connecting is not empty: a bridge beside an oxp-server whose MCP servers start late', { timeout: 240_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'connecting-'));
  const fastUp = join(dir, 'fast-up');
  const slowUp = join(dir, 'slow-up');
  let server: CliProcess;
  let bridge: CliProcess;
  let oxp: OxpClient;
  let client: Client;
  const log = new WireLog();

  before(async () => {
    const fast = mcpStdioCommand({ name: 'fast', waitFor: fastUp });
    const slow = mcpStdioCommand({ name: 'slow', waitFor: slowUp });
    server = await startCli(
      [
        'oxp-server',
        '--port',
        '0',
        '--mcp-command',
        `Fast=${commandLine(fast.command, fast.args)}`,
        '--mcp-command',
        `Slow=${commandLine(slow.command, slow.args)}`,
        '--connect-timeout-ms',
        '120000',
        '--log-level',
        'info',
      ],
      {},
    );
    oxp = new OxpClient(server.url);
    // The default catalog refresh period (300 s): tools that arrive within seconds cannot be the periodic refresh's.
    bridge = await startCli(['--port', '0', '--oxp-url', server.url, '--log-level', 'info'], {});
    client = new Client(
      { name: 'connecting', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } }, listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => undefined } } },
    );
    await client.connect(recordTransport(new StreamableHTTPClientTransport(new URL(bridge.url)), log));
    await eventually(() => client.autoOpenedSubscription !== undefined, 20_000, 'the client subscribed to tools/list_changed');
  });

  after(async () => {
    // Whatever happened, the stdio children may go (a late-starting server still waits otherwise).
    writeFileSync(fastUp, '');
    writeFileSync(slowUp, '');
    await client?.close().catch(() => undefined);
    await bridge?.stop();
    await server?.stop();
  });

  it('no MCP server has listed yet: GET /tools 503 with Retry-After; the bridge is not ready, and calls are told to try again', async () => {
    const list = await oxp.raw('/tools');
    assert.equal(list.status, 503, JSON.stringify(list.body));
    assert.ok(Number(list.headers.get('retry-after')) >= 1, 'Retry-After in whole seconds');
    assert.equal(list.body.$schema, 'urn:oxp:1.0');
    assert.equal(list.body.can_retry, true);
    assert.match(String(list.body.message), /none of the 2 MCP servers has listed its tools yet \(still connecting\)/);
    assert.equal((await oxp.raw('/health')).status, 503);

    // The bridge asked (at least once) and was told 503: not ready, in its own words.
    await eventually(async () => (await readyz(bridge)).body.upstreams.default?.lastError !== undefined, 20_000, 'the first catalog load ended');
    const ready = await readyz(bridge);
    assert.equal(ready.status, 503);
    assert.equal(ready.body.ready, false);
    assert.equal(ready.body.upstreams.default!.lastError, 'the tool server is not ready yet (HTTP 503 from GET /tools)');

    // doctor on the running bridge: "not ready yet" and what to do, not "0 tools".
    const checked = await doctorSays(bridge);
    assert.match(checked, /✗ upstream default: the tool server is not ready yet \(HTTP 503 from GET \/tools\)/);
    assert.match(checked, /has no tools to list yet .*The bridge asks again within seconds on its own/);

    const listed = await rejection(client.listTools());
    assert.match(listed.message, /The tool catalog is not loaded yet: the tool server is not reachable or not ready\. Try again shortly\./);
    const called = await rejection(client.callTool({ name: 'add', arguments: { a: 1, b: 2 } }));
    assert.doesNotMatch(called.message, /Unknown tool/);
    assert.match(called.message, /not loaded yet.*Try again shortly/);
  });

  it('one MCP server lists: 200 with its tools and Catalog-Pending: 1; the bridge loads them within seconds, says list_changed, and is ready', async (t) => {
    const notified = log.next('notifications/tools/list_changed', 60_000);
    const started = Date.now();
    writeFileSync(fastUp, '');
    await eventually(async () => (await oxp.raw('/tools')).status === 200, 60_000, 'the oxp-server listed the first MCP server');
    const list = await oxp.raw('/tools');
    assert.equal(list.headers.get('catalog-pending'), '1');
    const ids = (list.body.items as { id: string }[]).map((t) => t.id);
    assert.ok(ids.some((id) => id.startsWith('Fast.add@')) && !ids.some((id) => id.startsWith('Slow.')), ids.join(', '));

    assertValidServerMessage('2026-07-28', await notified);
    const loadedAfterMs = Date.now() - started;
    t.diagnostic(`list_changed ${loadedAfterMs} ms after the MCP server was let start`);
    // The MCP names are the OXP names (`add`); a name two toolkits share is told apart by the toolkit once both list.
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('add') && !names.some((n) => n.startsWith('Slow_')), names.join(', '));
    // Seconds, not the 300 s refresh period (generous for a loaded machine: the backoff's cap is 5 s).
    assert.ok(loadedAfterMs < 60_000, `the catalog loaded ${loadedAfterMs} ms after the MCP server started`);
    const ready = await readyz(bridge);
    assert.equal(ready.status, 200, 'a catalog was loaded: ready');
    assert.equal(ready.body.upstreams.default!.pending, 1, 'and its server said one of its MCP servers had not listed yet');
    assert.match(await doctorSays(bridge), /its server says 1 of its own tool servers has not listed their tools yet \(still connecting\)/);

    // A tool of the MCP server still connecting: "not known yet, try again", not "Unknown tool".
    const called = await rejection(client.callTool({ name: 'Slow_add', arguments: { a: 1, b: 2 } }));
    assert.equal(called.message.includes('Unknown tool'), false, called.message);
    assert.match(called.message, /Tool Slow_add is not known yet: not every tool server's catalog is loaded\. Try again shortly\./);
    const sum = await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
    assert.deepEqual(sum.structuredContent, { sum: 3 });
  });

  it('the other MCP server lists: the bridge follows within seconds (list_changed again), and the catalog is whole', async (t) => {
    const notified = log.next('notifications/tools/list_changed', 60_000);
    const started = Date.now();
    writeFileSync(slowUp, '');
    await eventually(async () => (await oxp.raw('/tools')).headers.get('catalog-pending') === null, 60_000, 'the oxp-server listed both');
    await notified;
    t.diagnostic(`list_changed ${Date.now() - started} ms after the second MCP server was let start`);
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('add') && names.includes('Slow_add'), names.join(', '));
    const ready = await readyz(bridge);
    assert.equal(ready.status, 200);
    assert.equal(ready.body.upstreams.default!.pending, undefined);
    const sum = await client.callTool({ name: 'Slow_add', arguments: { a: 2, b: 2 } });
    assert.deepEqual(sum.structuredContent, { sum: 4 });
    // The bridge's log: one error line when the first load failed, then the load that followed, with how many failed.
    const lines = bridge.logs.filter((l) => l.includes('"msg":"catalog refresh failed"'));
    assert.equal(lines.length, 1, lines.join('\n'));
    assert.ok(bridge.logs.some((l) => l.includes('"msg":"catalog loaded"') && l.includes('"failed_attempts"')));
  });
});

describe('many upstreams, one late: the others serve, its tools arrive within seconds', { timeout: 120_000 }, () => {
  const VERSION = '2025-11-25';
  const tool = (id: string, name: string): FixtureTool => ({
    id,
    name,
    version: '1.0.0',
    description: `${name}, served by ${id}`,
    input_schema: { type: 'object', properties: {} },
    output_schema: { type: 'object' },
    handler: () => ({ value: { served_by: id } }),
  });
  let crm: OxpFixtureServer;
  let empty: OxpFixtureServer;
  let late: OxpFixtureServer | undefined;
  let latePort: number;
  let bridge: RunningBridge;

  before(async () => {
    crm = await startOxpFixture({ tools: [tool('Crm.Search', 'Search')] });
    empty = await startOxpFixture({ tools: [] });
    // A port nothing listens on until the test starts the late upstream there.
    const held = createServer();
    await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
    latePort = (held.address() as AddressInfo).port;
    await new Promise((resolve) => held.close(resolve));
    const file = join(mkdtempSync(join(tmpdir(), 'connecting-many-')), 'bridge.yaml');
    writeFileSync(
      file,
      `port: 0\nlogLevel: silent\nupstreams:\n  - name: crm\n    url: ${crm.url}\n  - name: late\n    url: http://127.0.0.1:${latePort}\n  - name: empty\n    url: ${empty.url}\n`,
    );
    const loaded = loadConfig(['--config', file], {}) as LoadedConfig;
    bridge = await startBridge(loaded.config, createLogger('silent'), {});
  });
  after(async () => {
    await bridge?.close();
    await crm?.close();
    await empty?.close();
    await late?.close();
  });

  const rpc = async (method: string, params?: Record<string, unknown>) => {
    const res = await fetch(bridge.mcpUrl!, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-protocol-version': VERSION },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params ? { params } : {}) }),
    });
    const [msg] = await readMessages(res);
    assertValidServerMessage(VERSION, msg, method);
    return msg!;
  };
  const readiness = async () => {
    const res = await fetch(new URL('/readyz', bridge.mcpUrl));
    return { status: res.status, body: (await res.json()) as Readiness };
  };

  it('is not ready while one upstream has no catalog; a call for a name only it may hold is told to try again; the others serve', async (t) => {
    const before = await readiness();
    assert.equal(before.status, 503);
    assert.equal(before.body.upstreams.crm!.ready, true);
    assert.equal(before.body.upstreams.late!.ready, false);
    assert.equal(before.body.upstreams.late!.lastError, 'GET /tools: connection refused');
    // An upstream that publishes no tools (an empty list answered 200) has a catalog: it is ready with 0 tools.
    assert.deepEqual([before.body.upstreams.empty!.ready, before.body.upstreams.empty!.tools], [true, 0]);
    const unknown = await rpc('tools/call', { name: 'Lookup', arguments: {} });
    assert.deepEqual(unknown.error, { code: -32603, message: "Tool Lookup is not known yet: not every tool server's catalog is loaded. Try again shortly." });
    const served = await rpc('tools/call', { name: 'Search', arguments: {} });
    assert.deepEqual((served.result as { structuredContent?: unknown }).structuredContent, { served_by: 'Crm.Search' });

    // The late upstream comes up: its catalog loads on the backoff (at most 5 s apart), not at the 300 s refresh.
    const started = Date.now();
    late = await startOxpFixture({ tools: [tool('Late.Lookup', 'Lookup')], port: latePort });
    await eventually(async () => (await readiness()).status === 200, 60_000, 'the late upstream loaded');
    t.diagnostic(`the late upstream's catalog loaded ${Date.now() - started} ms after it started listening`);
    const names = ((await rpc('tools/list')).result as { tools: { name: string }[] }).tools.map((x) => x.name);
    assert.deepEqual(names.sort(), ['Lookup', 'Search']);
    const looked = await rpc('tools/call', { name: 'Lookup', arguments: {} });
    assert.deepEqual((looked.result as { structuredContent?: unknown }).structuredContent, { served_by: 'Late.Lookup' });
    // Once every catalog is loaded, a name none holds is an unknown tool again.
    assert.equal(((await rpc('tools/call', { name: 'Nope', arguments: {} })).error as { code: number }).code, -32602);
  });
});
