/**
 * An orderly stop answers (docs/production.md, "Shutdown, probes and scaling"): the real CLI as a child process, a
 * call held running by the test, then SIGTERM. Readiness answers 503 at once (the listener still accepts: no
 * ECONNREFUSED); new requests are served for the drain delay, then answered 503 with Retry-After and `Connection:
 * close`; the running call finishes; the process exits 0. The same for the oxp-server; over stdio, what was read
 * before the signal is answered and stdin is read no more. From the signal on, every answer closes its connection.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { createInterface } from 'node:readline';
import { startOxpFixture, type FixtureTool } from '../fixtures/oxp-fixture-server.js';
import { startMcpHttpFixture, type FixtureMcpTool } from '../fixtures/mcp-fixture-server.js';
import { startCli, type CliProcess } from '../helpers/cli-process.js';
import { MCP_HEADERS } from '../helpers/bridge-harness.js';
import { eventually } from '../helpers/oxp-server-harness.js';

/** Long enough that a request sent once readiness has turned 503 lands within it on a loaded machine. */
const DELAY_S = 4;

interface RawReply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One HTTP request on a keep-alive agent (so a `Connection: close` in the answer is the server's choice). */
function raw(agent: Agent, url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers: init.headers, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/** A promise the test settles: the call it holds runs until then. */
function held(): { released: Promise<void>; release: () => void } {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  return { released, release };
}

/** An OXP tool that runs until the test releases `hold`. */
function heldTool(hold: { released: Promise<void> }): FixtureTool {
  return {
    id: 'Held.Work',
    name: 'Held_Work',
    version: '1.0.0',
    description: 'Runs until the test lets it finish',
    input_schema: { type: 'object' },
    output_schema: { type: 'object' },
    handler: async () => {
      await hold.released;
      return { value: { finished: true } };
    },
  };
}

/**
 * After SIGTERM: polls `probe` (each poll must be answered: a refused connection throws) until it is not 200 any
 * more, and returns that answer.
 */
async function firstNotReady(probe: () => Promise<RawReply>): Promise<RawReply> {
  for (;;) {
    const reply = await probe();
    if (reply.status !== 200) return reply;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Polls `send` until it is refused; every answer before must be a 200. */
async function firstRefusal(send: () => Promise<RawReply>): Promise<{ refusal: RawReply; servedBefore: number }> {
  let servedBefore = 0;
  for (;;) {
    const reply = await send();
    if (reply.status !== 200) return { refusal: reply, servedBefore };
    servedBefore += 1;
    await new Promise((r) => setTimeout(r, 100));
  }
}

function stopped(cli: CliProcess): Promise<number | string> {
  return Promise.race([cli.exited, new Promise<string>((resolve) => setTimeout(() => resolve('still running after 30 s'), 30_000))]);
}

describe('SIGTERM drains without refusing connections', () => {
  it('the MCP bridge: /readyz 503 at once, tools/list served for the drain delay, then 503 with Retry-After and Connection: close; the running call finishes; exit 0', async () => {
    const hold = held();
    const fixture = await startOxpFixture({ tools: [heldTool(hold)] });
    const cli = await startCli(['--oxp-url', fixture.url, '--port', '0', '--log-level', 'info', '--drain-delay-seconds', String(DELAY_S)], {});
    const agent = new Agent({ keepAlive: true });
    const mcp = (body: unknown) =>
      raw(agent, cli.url, { method: 'POST', headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-06-18' }, body: JSON.stringify(body) });
    const readyz = () => raw(agent, new URL('/readyz', cli.url).href);
    try {
      await eventually(async () => (await readyz()).status === 200, 30_000, '/readyz 200');
      const running = mcp({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'Held_Work', arguments: {} } });
      running.catch(() => undefined); // awaited below; a failed assertion before then is reported as itself
      await eventually(() => fixture.callCount('Held.Work') === 1, 30_000, 'the call reached the upstream');

      cli.child.kill('SIGTERM');
      const notReady = await firstNotReady(readyz);
      assert.equal(notReady.status, 503);
      assert.equal((JSON.parse(notReady.body) as { draining?: boolean }).draining, true);

      // Within the delay: served, and the connection closed after it (the next request goes through the balancer again).
      const list = await mcp({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      assert.equal(list.status, 200, list.body);
      assert.match(list.body, /Held_Work/);
      assert.equal(list.headers.connection, 'close');

      const { refusal } = await firstRefusal(() => mcp({ jsonrpc: '2.0', id: 3, method: 'tools/list' }));
      assert.equal(refusal.status, 503, refusal.body);
      assert.equal(refusal.headers['retry-after'], '1');
      assert.equal(refusal.headers.connection, 'close');
      assert.match(refusal.body, /shutting down/);
      // Still accepting: the probe is answered (503), not refused.
      assert.equal((await readyz()).status, 503);

      hold.release();
      const answer = await running;
      assert.equal(answer.status, 200);
      assert.match(answer.body, /"finished":true/);
      assert.equal(await stopped(cli), 0, cli.logs.join('\n'));
      assert.ok(
        cli.logs.some((l) => l.includes('drained: no request in flight')),
        cli.logs.join('\n'),
      );
    } finally {
      hold.release();
      agent.destroy();
      await cli.stop();
      await fixture.close();
    }
  });

  it('the oxp-server: /health 503 at once, GET /tools served for the drain delay, then 503 with Retry-After and Connection: close; the running call finishes; exit 0', async () => {
    const hold = held();
    const tool: FixtureMcpTool = {
      name: 'held',
      description: 'Runs until the test lets it finish.',
      inputSchema: { type: 'object', properties: {} },
      run: async () => {
        await hold.released;
        return { result: { content: [{ type: 'text', text: 'finished' }] } };
      },
    };
    const fixture = await startMcpHttpFixture({ tools: [tool] });
    const cli = await startCli(['oxp-server', '--port', '0', '--mcp-url', `Local=${fixture.url}`, '--drain-delay-seconds', String(DELAY_S)], {});
    const agent = new Agent({ keepAlive: true });
    const get = (path: string) => raw(agent, `${cli.url}${path}`);
    try {
      await eventually(async () => (await get('/health')).status === 200, 30_000, '/health 200');
      const running = raw(agent, `${cli.url}/tools/call`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ $schema: 'urn:oxp:1.0', request: { tool_id: 'Local.held' } }),
      });
      running.catch(() => undefined); // awaited below; a failed assertion before then is reported as itself
      await eventually(() => fixture.catalog.calls.length === 1, 30_000, 'the call reached the MCP server');

      cli.child.kill('SIGTERM');
      const notReady = await firstNotReady(() => get('/health'));
      assert.equal(notReady.status, 503);
      assert.equal((JSON.parse(notReady.body) as { draining?: boolean }).draining, true);

      const tools = await get('/tools');
      assert.equal(tools.status, 200, tools.body);
      assert.match(tools.body, /Local\.held/);
      assert.equal(tools.headers.connection, 'close');

      const { refusal } = await firstRefusal(() => get('/tools'));
      assert.equal(refusal.status, 503, refusal.body);
      assert.equal(refusal.headers['retry-after'], '1');
      assert.equal(refusal.headers.connection, 'close');
      assert.equal((JSON.parse(refusal.body) as { $schema?: string }).$schema, 'urn:oxp:1.0');
      assert.equal((await get('/health')).status, 503);

      hold.release();
      const answer = await running;
      assert.equal(answer.status, 200, answer.body);
      assert.match(answer.body, /finished/);
      assert.equal(await stopped(cli), 0, cli.logs.join('\n'));
    } finally {
      hold.release();
      agent.destroy();
      await cli.stop();
      await fixture.close();
    }
  });

  it('stdio: what was read before SIGTERM is answered, a request written after it is not read, exit 0', async () => {
    const hold = held();
    const fixture = await startOxpFixture({ tools: [heldTool(hold)] });
    const cli = await startCli(['--transport', 'stdio', '--oxp-url', fixture.url, '--log-level', 'info'], {}, { stdio: true });
    const lines = createInterface({ input: cli.child.stdout! })[Symbol.asyncIterator]();
    const next = async () => JSON.parse((await lines.next()).value as string) as { id?: unknown; result?: unknown };
    const send = (message: unknown) => cli.child.stdin!.write(`${JSON.stringify(message)}\n`);
    try {
      send({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      });
      assert.equal((await next()).id, 0);
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'Held_Work', arguments: {} } });
      await eventually(() => fixture.callCount('Held.Work') === 1, 30_000, 'the call reached the upstream');

      cli.child.kill('SIGTERM');
      await eventually(() => cli.logs.some((l) => l.includes('shutting down')), 30_000, 'the stop began');
      send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      hold.release();
      const answer = await next();
      assert.equal(answer.id, 1);
      assert.deepEqual((answer.result as { structuredContent?: unknown }).structuredContent, { finished: true });
      assert.equal(await stopped(cli), 0, cli.logs.join('\n'));
      const { done } = await lines.next();
      assert.ok(done, 'nothing more on stdout: the request written after the signal was not read');
    } finally {
      hold.release();
      await cli.stop();
      await fixture.close();
    }
  });
});
