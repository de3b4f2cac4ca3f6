/**
 * The oxp-server's life with its MCP servers: tools/list_changed refreshes
 * the OXP catalog (stdio, Streamable HTTP in both eras), reconnection after
 * an upstream restarts, an upstream that is down (400 with the detail only in
 * developer_message; /health 503 while none is reachable), and the declared
 * OXP context reaching the MCP server.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/platform/log.js';
import { after, before, describe, it } from 'node:test';
import { fixtureTools, IMAGE, mcpStdioCommand, startMcpHttpFixture, type FixtureMcpTool, type McpHttpFixture } from '../fixtures/mcp-fixture-server.js';
import { startMcpSseFixture } from '../fixtures/mcp-sse-fixture.js';
import { commandLine, eventually, startTestOxpServer, writeConfigFile, type TestOxpServer } from '../helpers/oxp-server-harness.js';

/** What a default fixture lists (every tool of it is published). */
const FIXTURE_TOOLS = fixtureTools().length;

const extraTool = (name: string): FixtureMcpTool => ({
  name,
  inputSchema: { type: 'object', properties: {} },
  run: () => ({ result: { content: [{ type: 'text', text: `I am ${name}` }] } }),
});
/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
const listedIds = async (server: TestOxpServer) => (await server.client.listOrNone()).map((t) => String(t.id));

describe('oxp-server: tools/list_changed refreshes the catalog', () => {
  it('stdio upstream: a tool the server adds is listed and callable', async () => {
    const { command, args } = mcpStdioCommand();
    const server = await startTestOxpServer(['--mcp-command', `Local=${commandLine(command, args)}`, '--refresh-seconds', '3600']);
    try {
      assert.ok(!(await listedIds(server)).includes('Local.fresh@0.9.1'));
      assert.equal((await server.client.result('Local.grow', { name: 'fresh' })).value, 'growing');
      await eventually(async () => (await listedIds(server)).includes('Local.fresh@0.9.1'), 10_000, 'Local.fresh listed');
      assert.equal((await server.client.result('Local.fresh', {})).value, 'I am fresh');
    } finally {
      await server.close();
    }
  });

  for (const legacyOnly of [false, true]) {
    it(`Streamable HTTP upstream (${legacyOnly ? '2025-11-25 session, GET stream' : '2026-07-28 subscriptions/listen'}): added and removed tools`, async () => {
      const fixture = await startMcpHttpFixture({ legacyOnly, version: '1.0.0' });
      const server = await startTestOxpServer(['--mcp-url', `Web=${fixture.url}`, '--refresh-seconds', '3600']);
      try {
        fixture.catalog.setTools([...fixture.catalog.tools.filter((t) => t.name !== 'fail'), extraTool('added_later')]);
        await eventually(
          async () => {
            const ids = await listedIds(server);
            return ids.includes('Web.added_later@1.0.0') && !ids.includes('Web.fail@1.0.0');
          },
          10_000,
          'catalog refreshed',
        );
        assert.equal((await server.client.result('Web.added_later', {})).value, 'I am added_later');
        const gone = await server.client.call('Web.fail', {});
        assert.equal(gone.status, 400);
      } finally {
        await server.close();
        await fixture.close();
      }
    });
  }
});

describe('oxp-server: reconnecting after an upstream restart', () => {
  for (const legacyOnly of [false, true]) {
    it(`Streamable HTTP upstream (${legacyOnly ? '2025-11-25 sessions' : '2026-07-28'}): calls work again once it is back, and list changes still arrive`, async () => {
      const fixture = await startMcpHttpFixture({ legacyOnly, version: '1.0.0' });
      const server = await startTestOxpServer(['--mcp-url', `Web=${fixture.url}`, '--refresh-seconds', '3600']);
      try {
        assert.deepEqual((await server.client.result('Web.add', { a: 1, b: 1 })).value, { sum: 2 });
        await fixture.restart({ downMs: 300 });
        await eventually(async () => (await server.client.call('Web.add', { a: 2, b: 2 })).status === 200, 15_000, 'calls succeed after the restart');
        assert.deepEqual((await server.client.result('Web.add', { a: 2, b: 3 })).value, { sum: 5 });
        fixture.catalog.setTools([...fixture.catalog.tools, extraTool('after_restart')]);
        await eventually(async () => (await listedIds(server)).includes('Web.after_restart@1.0.0'), 15_000, 'list change after the restart');
      } finally {
        await server.close();
        await fixture.close();
      }
    });
  }

  it('stdio upstream: a child that exits is started again', async () => {
    const { command, args } = mcpStdioCommand();
    const server = await startTestOxpServer(['--mcp-command', `Local=${commandLine(command, args)}`, '--refresh-seconds', '3600']);
    try {
      const firstPid = (await server.client.result('Local.pid', {})).value;
      assert.equal((await server.client.result('Local.exit', {})).value, 'bye');
      await eventually(
        async () => {
          const reply = await server.client.call('Local.pid', {});
          return reply.status === 200 && (reply.body.result as Record<string, unknown>).value !== firstPid;
        },
        20_000,
        'a new child answers',
      );
      assert.equal(server.upstreams.status()[0]!.connected, true);
    } finally {
      await server.close();
    }
  });
});

describe('oxp-server: an upstream that is down', () => {
  let fixture: McpHttpFixture;
  let server: TestOxpServer;
  before(async () => {
    fixture = await startMcpHttpFixture({ legacyOnly: true, version: '1.0.0' });
    server = await startTestOxpServer(['--mcp-url', `Web=${fixture.url}`, '--refresh-seconds', '1']);
  });
  after(async () => {
    await server?.close();
    await fixture?.close();
  });

  it('keeps its tools listed, answers calls with 503 and can_retry (detail only in developer_message), and /health 503 until it is back', async () => {
    assert.deepEqual((await server.client.raw('/health')).body, { status: 'ok', upstreams: [{ toolkit: 'Web', state: 'connected', tools: FIXTURE_TOOLS }] });
    await fixture.stop();
    const reply = await server.client.call('Web.add', { a: 1, b: 2 });
    assert.equal(reply.status, 503);
    assert.equal(reply.body.message, 'The tool server behind Web.add is not connected at the moment. Try again shortly.');
    assert.equal(reply.body.can_retry, true);
    assert.ok(Number(reply.body.retry_after_ms) >= 1000 && Number(reply.headers.get('retry-after')) >= 1);
    assert.match(String(reply.body.developer_message), /ECONNREFUSED|connection refused|404|Session/i);
    assert.ok((await listedIds(server)).includes('Web.add@1.0.0'), 'tools stay listed');
    await eventually(async () => (await server.client.raw('/health')).status === 503, 10_000, '/health 503');
    assert.deepEqual((await server.client.raw('/health')).body, {
      status: 'unavailable',
      upstreams: [{ toolkit: 'Web', state: 'reconnecting', tools: FIXTURE_TOOLS }],
    });
    await fixture.start();
    await eventually(async () => (await server.client.raw('/health')).status === 200, 20_000, '/health 200 again');
    assert.equal((await server.client.call('Web.add', { a: 1, b: 2 })).status, 200);
  });

  it('an upstream that never answered: the server still starts, /health 503, calls 503 with can_retry; other ids 400', async () => {
    const port = await closedPort();
    const dead = await startTestOxpServer([
      '--mcp-url',
      `Dead=http://127.0.0.1:${port}/mcp`,
      '--mcp-url',
      'Blocked=http://127.0.0.1:9/mcp',
      '--connect-timeout-ms',
      '2000',
    ]);
    try {
      assert.equal((await dead.client.raw('/health')).status, 503);
      // No MCP server has listed its tools: "try again", not an empty list a client would take for "no tools".
      const tools = await dead.client.raw('/tools');
      assert.equal(tools.status, 503);
      assert.ok(Number(tools.headers.get('retry-after')) >= 1);
      assert.deepEqual(tools.body, {
        $schema: 'urn:oxp:1.0',
        message: 'No tools yet: none of the 2 MCP servers has listed its tools yet (reconnecting). Try again shortly.',
        can_retry: true,
        retry_after_ms: tools.body.retry_after_ms,
      });
      const reply = await dead.client.call('Dead.anything', {});
      assert.equal(reply.status, 503);
      assert.equal(reply.body.can_retry, true);
      assert.equal((await dead.client.call('Other.anything', {})).status, 400, 'no upstream could hold it: not found');
      assert.equal(dead.upstreams.status()[0]!.lastError, `connection refused (nothing listens there) (127.0.0.1:${port}) [ECONNREFUSED]`);
      // fetch refuses some ports outright; its reason, not just "fetch failed".
      assert.match(dead.upstreams.status()[1]!.lastError ?? '', /fetch failed: bad port$/);
    } finally {
      await dead.close();
    }
  });

  it('one broken upstream delays nobody: the port and the healthy upstream serve while it is still connecting', async () => {
    // A "server" that reads stdin and never answers, until the test is over: close() does not wait for a connection
    // still being opened, but the attempt itself (and this file's process) would live on for the whole connect
    // timeout, twice (version probe, then initialize). Told to exit, it ends the attempt at once.
    const done = join(mkdtempSync(join(tmpdir(), 'oxp-silent-')), 'done');
    const silent = commandLine(process.execPath, [
      '-e',
      `process.stdin.resume(); setInterval(() => require('node:fs').existsSync(${JSON.stringify(done)}) && process.exit(0), 100)`,
    ]);
    const healthy = await startMcpHttpFixture({ version: '1.0.0' });
    const started = Date.now();
    const both = await startTestOxpServer(
      ['--mcp-command', `Silent=${silent}`, '--mcp-url', `Web=${healthy.url}`, '--connect-timeout-ms', '60000'],
      {},
      undefined,
      { noWait: true },
    );
    try {
      await eventually(async () => (await listedIds(both)).includes('Web.add@1.0.0'), 20_000, 'the healthy upstream listed');
      assert.ok(Date.now() - started < 30_000);
      // Its tools are served; the header says one MCP server has not listed yet (the list is not whole).
      assert.equal((await both.client.raw('/tools')).headers.get('catalog-pending'), '1');
      assert.deepEqual((await both.client.raw('/health')).body, {
        status: 'ok',
        upstreams: [
          { toolkit: 'Silent', state: 'connecting', tools: 0 },
          { toolkit: 'Web', state: 'connected', tools: FIXTURE_TOOLS },
        ],
      });
      assert.deepEqual((await both.client.result('Web.add', { a: 1, b: 2 })).value, { sum: 3 });
      assert.equal((await both.client.call('Silent.x', {})).status, 503);
    } finally {
      writeFileSync(done, '');
      await both.close();
      await healthy.close();
    }
  });
});

describe('oxp-server: an MCP server with no tools', () => {
  it('has listed: GET /tools is 200 with an empty list (not the 503 of one still connecting), without Catalog-Pending', async () => {
    const none = await startMcpHttpFixture({ tools: [] });
    const server = await startTestOxpServer(['--mcp-url', `Empty=${none.url}`]);
    try {
      const reply = await server.client.raw('/tools');
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      assert.deepEqual(await server.client.list(), []);
      assert.equal(reply.headers.get('catalog-pending'), null);
    } finally {
      await server.close();
      await none.close();
    }
  });
});

describe('oxp-server: cancellation', () => {
  for (const legacyOnly of [false, true]) {
    it(`an OXP client that goes away cancels the MCP call (${legacyOnly ? '2025-11-25' : '2026-07-28'}), and the upstream stays connected`, async () => {
      const fixture = await startMcpHttpFixture({ legacyOnly, version: '1.0.0' });
      const server = await startTestOxpServer(['--mcp-url', `Web=${fixture.url}`]);
      try {
        const aborter = new AbortController();
        const pending = fetch(`${server.url}/tools/call`, {
          method: 'POST',
          signal: aborter.signal,
          body: JSON.stringify({ request: { tool_id: 'Web.slow', input: { ms: 10_000 } } }),
        });
        await eventually(() => fixture.catalog.calls.some((c) => c.name === 'slow'), 5_000, 'the MCP server got the call');
        aborter.abort();
        await assert.rejects(pending);
        await eventually(() => fixture.catalog.calls.find((c) => c.name === 'slow')!.cancelled === true, 5_000, 'the MCP server saw the cancellation');
        assert.equal(server.upstreams.status()[0]!.connected, true);
        assert.deepEqual((await server.client.result('Web.add', { a: 1, b: 1 })).value, { sum: 2 });
      } finally {
        await server.close();
        await fixture.close();
      }
    });
  }
});

describe('oxp-server: a legacy HTTP+SSE upstream', () => {
  for (const transport of ['auto', 'sse'] as const) {
    it(`is reached with transport ${transport}${transport === 'auto' ? ' (Streamable HTTP first, then the SSE fallback)' : ''}`, async () => {
      const fixture = await startMcpSseFixture({ version: '0.5.0' });
      const server = await startTestOxpServer(['--config', writeConfigFile({ oxpServer: { upstreams: [{ toolkit: 'Old', url: fixture.url, transport }] } })]);
      try {
        assert.deepEqual(
          server.upstreams.status().map((u) => [u.transport, u.era]),
          [['sse', 'legacy']],
        );
        assert.ok((await listedIds(server)).includes('Old.add@0.5.0'));
        assert.deepEqual((await server.client.result('Old.add', { a: 20, b: 22 })).value, { sum: 42 });
        assert.deepEqual((await server.client.result('Old.make_image', {})).value, {
          contentEncoding: 'base64',
          contentMediaType: IMAGE.mimeType,
          data: IMAGE.data,
        });
        assert.equal((await server.client.result('Old.fail', {})).success, false);
      } finally {
        await server.close();
        await fixture.close();
      }
    });
  }
});

describe('oxp-server: declared requirements', () => {
  it('requires the declared context (400, missing_requirements.user_id) and passes only that to the MCP server in _meta', async () => {
    const fixture = await startMcpHttpFixture({ version: '1.0.0' });
    const server = await startTestOxpServer([
      '--config',
      writeConfigFile({
        oxpServer: {
          upstreams: [
            {
              toolkit: 'Web',
              url: fixture.url,
              requirements: { secrets: [{ id: 'API_KEY' }] },
              tools: { add: { requirements: { user_id: true, authorization: [{ id: 'github' }] } } },
            },
          ],
        },
      }),
    ]);
    try {
      const add = (await server.client.list()).find((t) => t.id === 'Web.add@1.0.0')!;
      assert.deepEqual(add.requirements, { user_id: true, authorization: [{ id: 'github' }] });
      const missing = await server.client.call('Web.add', { a: 1, b: 2 });
      assert.equal(missing.status, 400);
      assert.deepEqual(missing.body.missing_requirements, { user_id: true });
      assert.match(String(missing.body.message), /authorization token for github/);
      const context = {
        user_id: 'alice',
        authorization: [
          { id: 'github', token: 'gh-token' },
          { id: 'other', token: 'x' },
        ],
        secrets: [{ id: 'API_KEY', value: 'not for add' }],
      };
      assert.equal((await server.client.call('Web.add', { a: 1, b: 2 }, { context })).status, 200);
      assert.deepEqual(fixture.catalog.calls.at(-1)!.meta?.['mcp-oxp-bridge/oxp-context'], {
        authorization: [{ id: 'github', token: 'gh-token' }],
        user_id: 'alice',
      });
      const echo = await server.client.call('Web.which_era', {}, { context: { secrets: [{ id: 'API_KEY', value: 'k' }] } });
      assert.equal(echo.status, 200);
      assert.deepEqual(fixture.catalog.calls.at(-1)!.meta?.['mcp-oxp-bridge/oxp-context'], { secrets: [{ id: 'API_KEY', value: 'k' }] });
    } finally {
      await server.close();
      await fixture.close();
    }
  });
});

describe('oxp-server: a stdio MCP server that exits at start', () => {
  it('is reported with its exit code and the end of its stderr (warn, bounded), which never reaches an OXP client', async () => {
    const CANARY = 'CANARY-STDERR-7f2a';
    // 8 KiB of noise, then the line that says why: only the end is kept.
    const script = `process.stderr.write('${CANARY} '.repeat(400) + '\\nError: Cannot find module ./server.js\\n', () => process.exit(3))`;
    const lines: Record<string, unknown>[] = [];
    const log = createLogger('warn', new Writable({ write: (chunk, _e, done) => (lines.push(JSON.parse(String(chunk)) as Record<string, unknown>), done()) }));
    const server = await startTestOxpServer(
      ['--mcp-command', `Broken=${commandLine(process.execPath, ['-e', script])}`, '--connect-timeout-ms', '10000'],
      {},
      log,
    );
    try {
      const failed = lines.find((l) => l.msg === 'cannot connect to MCP server');
      assert.ok(failed, JSON.stringify(lines));
      assert.equal(failed.level, 40);
      assert.equal(failed.exit_code, 3);
      assert.match(String(failed.err), /^the MCP server's process exited with code 3 before it answered/);
      const stderr = String(failed.stderr);
      assert.match(stderr, /Error: Cannot find module \.\/server\.js$/);
      assert.ok(Buffer.byteLength(stderr) <= 400, `bounded: ${Buffer.byteLength(stderr)} bytes`);
      // The child's words stay in the operator's log: not in lastError (console), /health or an OXP error.
      const { lastError } = server.upstreams.status()[0]!;
      assert.match(lastError ?? '', /exited with code 3/);
      assert.ok(!lastError!.includes('Cannot find module'));
      const call = await server.client.call('Broken.anything', {});
      assert.equal(call.status, 503);
      const health = await server.client.raw('/health');
      for (const text of [JSON.stringify(call.body), JSON.stringify(health.body)]) {
        assert.ok(!text.includes(CANARY) && !text.includes('Cannot find module'), text);
      }
    } finally {
      await server.close();
    }
  });
});

describe('oxp-server: an upstream that never comes (a placeholder URL)', () => {
  it('backs off, says so once at warn and then at debug, each line with the next attempt; /health says it is down', async () => {
    const port = await closedPort();
    const lines: Record<string, unknown>[] = [];
    const log = createLogger('debug', new Writable({ write: (chunk, _e, done) => (lines.push(JSON.parse(String(chunk)) as Record<string, unknown>), done()) }));
    const config = writeConfigFile({ oxpServer: { upstreams: [{ toolkit: 'Remote', url: `http://127.0.0.1:${port}/mcp` }], reconnectMaxMs: 1000 } });
    const server = await startTestOxpServer(['--config', config], {}, log);
    try {
      const attempts = () => lines.filter((l) => typeof l.msg === 'string' && l.msg.includes('cannot connect to MCP server'));
      await eventually(() => attempts().length >= 4, 20_000, 'four attempts');
      const [first, ...repeats] = attempts();
      assert.equal(first!.level, 40, 'the first failure at warn');
      assert.deepEqual(
        repeats.map((l) => l.level),
        repeats.map(() => 20),
        'repeats at debug',
      );
      for (const line of attempts()) {
        assert.equal(typeof line.retry_in_ms, 'number');
        assert.ok((line.retry_in_ms as number) <= 1000, `capped: ${String(line.retry_in_ms)}`);
        assert.ok(!Number.isNaN(Date.parse(String(line.next_attempt_at))), String(line.next_attempt_at));
      }
      const health = await server.client.raw('/health');
      assert.equal(health.status, 503);
      assert.deepEqual(health.body.upstreams, [{ toolkit: 'Remote', state: 'reconnecting', tools: 0 }]);
    } finally {
      await server.close();
    }
  });
});
