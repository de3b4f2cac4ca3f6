/**
 * A Redis that answers garbage: a TCP server speaking just enough RESP for the client to connect (PING, INFO,
 * CLIENT SETNAME) and answering every other command with a value of the wrong shape — a number for a script, a
 * string for a list, a hash with fields nobody wrote, an error. The bridge's limit store and task store read it as
 * untrusted: limited calls are still answered (each replica's share, counted locally), a task-augmented call gets one
 * clear refusal (no task, no admission held), tasks/get and tasks/list one answer each, and the bridge stays healthy.
 */
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startOxpFixture, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { startCli, type CliProcess } from '../helpers/cli-process.js';
import { assertValidServerMessage } from '../helpers/mcp-schema.js';
import { bulk, commands, READY_INFO } from '../helpers/resp.js';
import { taskConfigFile, taskFixtureTools } from '../helpers/task-fixtures.js';

const GARBAGE = [':42\r\n', '$7\r\ngarbage\r\n', '*1\r\n$3\r\nwat\r\n', '+OK\r\n', '-ERR garbage\r\n', '*3\r\n:1\r\n$2\r\n{x\r\n*0\r\n'];

function garbageRedis(): Promise<{ server: Server; url: string; answered: () => number }> {
  let answered = 0;
  let turn = 0;
  const server = createServer((socket: Socket) => {
    const buffer = { data: '' };
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      buffer.data += chunk.toString('latin1');
      for (const [name = ''] of commands(buffer)) {
        const command = name.toUpperCase();
        answered++;
        if (command === 'PING') socket.write('+PONG\r\n');
        else if (command === 'INFO') socket.write(bulk(READY_INFO));
        else if (command === 'CLIENT' || command === 'SELECT') socket.write('+OK\r\n');
        else if (command === 'HGETALL') socket.write('*4\r\n$6\r\nstatus\r\n$4\r\nlost\r\n$4\r\njson\r\n$2\r\n{x\r\n');
        else socket.write(GARBAGE[turn++ % GARBAGE.length]!);
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `redis://127.0.0.1:${(server.address() as { port: number }).port}`, answered: () => answered })),
  );
}

describe('hostile: a Redis that answers garbage', () => {
  let redis: Awaited<ReturnType<typeof garbageRedis>>;
  let fixture: OxpFixtureServer;
  let bridge: CliProcess;

  before(async () => {
    redis = await garbageRedis();
    fixture = await startOxpFixture({ tools: taskFixtureTools() });
    const config = taskConfigFile(fixture.url, {
      store: { redis: { url: redis.url, commandTimeoutMs: 500 } },
      access: { rules: [{ id: 'budget', effect: 'allow', tools: { names: ['echo'] }, limits: { requestsPerMinute: 1, burst: 3 } }] },
    });
    bridge = await startCli(['--config', config, '--port', '0'], {});
  });
  after(async () => {
    await bridge?.stop();
    await fixture?.close();
    redis?.server.close();
  });

  async function rpc(method: string, params: Record<string, unknown>, version = '2025-11-25'): Promise<Record<string, unknown>> {
    const res = await fetch(bridge.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': version },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
      signal: AbortSignal.timeout(20_000),
    });
    const text = await res.text();
    const body = JSON.parse(text.startsWith('{') ? text : /^data: (.*)$/m.exec(text)![1]!) as Record<string, unknown>;
    assertValidServerMessage(version as '2025-11-25', body);
    assert.equal(body.id, 7, 'one answer, to this request');
    return body;
  }

  it('limited calls are answered from the local share: at most the burst of 3 pass, the rest refused as rate limited', async () => {
    const outcomes: string[] = [];
    for (let i = 0; i < 5; i++) {
      const reply = await rpc('tools/call', { name: 'echo', arguments: { label: String(i) } });
      const result = reply.result as { isError?: boolean; _meta?: Record<string, { kind?: string }> };
      outcomes.push(result.isError ? (result._meta?.['mcp-oxp-bridge/error']?.kind ?? 'error') : 'ok');
    }
    // The share is the burst of 3 divided by the replicas the garbage claims there are (a count it may inflate, never
    // deflate below one): at least one passes, at most the whole burst, the rest are refused as counted.
    const passed = outcomes.filter((o) => o === 'ok').length;
    assert.ok(passed >= 1 && passed <= 3, outcomes.join());
    assert.deepEqual(outcomes.slice(passed), Array(5 - passed).fill('rate_limited'));
    assert.ok(redis.answered() > 0, 'the bridge did ask the garbage Redis');
  });

  it('a task-augmented call: one clear refusal, no task made; tasks/get and tasks/list: one answer each', async () => {
    const before = fixture.callCount('Slow.Work');
    const reply = await rpc('tools/call', { name: 'slow_work', arguments: { label: 'x' }, task: { ttl: 60_000 } });
    const error = reply.error as { code: number; message: string } | undefined;
    assert.ok(error, JSON.stringify(reply));
    assert.match(error.message, /task store/);
    assert.equal(fixture.callCount('Slow.Work'), before, 'no task, so no OXP call');
    for (const [method, params] of [
      ['tasks/get', { taskId: 'A'.repeat(24) }],
      ['tasks/list', {}],
    ] as const) {
      const answer = await rpc(method, params);
      assert.ok(answer.error || answer.result, JSON.stringify(answer));
    }
  });

  it('the bridge stays healthy, and its log names no garbage as a crash', async () => {
    assert.equal((await fetch(new URL('/healthz', bridge.url))).status, 200);
    assert.ok(!bridge.logs.some((line) => /"level":60|uncaught/.test(line)), bridge.logs.filter((l) => /"level":[56]0/.test(l)).join('\n'));
  });
});
