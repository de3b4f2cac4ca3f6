/**
 * Tasks whose OXP call waits for a connection (issue 41, "honest state for queued work"): the real CLI with
 * `upstream.connections: 2` and four long 2025-11-25 tasks. Two calls reach the OXP server; the other two wait in the
 * bridge, and say so: their `tasks/get` statusMessage names the upstream they wait for, and
 * `mcp_oxp_bridge_upstream_queued_calls{upstream="default"}` reads 2. Once one running task ends (cancelled: its
 * connection closes), the first waiting task's call goes out — the OXP server sees its label — and its message says it
 * runs; the gauge reads 1. `doctor --config` on that configuration notes that 10,000 tasks exceed 2 connections,
 * without failing a check.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runDoctor } from '../../src/commands/doctor/doctor.js';
import { startOxpFixture, type FixtureTool, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { startCli, type CliProcess } from '../helpers/cli-process.js';
import { cleanChildEnv } from '../helpers/it-bridge.js';
import { assertValidServerMessage } from '../helpers/mcp-schema.js';
import { taskConfigFile, until } from '../helpers/task-fixtures.js';

const VERSION = '2025-11-25';

/** `wait`: a minute, then "done <label>" (every task here is cancelled before). */
function tools(): FixtureTool[] {
  const schema = { type: 'object', properties: { label: { type: 'string' } } };
  const label = (input: unknown) => String((input as { label?: unknown } | undefined)?.label ?? '');
  return [
    {
      id: 'Wait.Long',
      name: 'wait',
      version: '1.0.0',
      input_schema: schema,
      handler: (req) => ({ delayMs: 60_000, then: { value: `done ${label(req.input)}` } }),
    },
  ];
}

async function rpc(url: string, method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': VERSION },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  const body = (text.startsWith('{') ? JSON.parse(text) : JSON.parse(/^data: (.*)$/m.exec(text)![1]!)) as Record<string, unknown>;
  assertValidServerMessage(VERSION, body);
  assert.ok(body.result, JSON.stringify(body));
  return body.result as Record<string, unknown>;
}

describe('tasks waiting for an upstream connection', () => {
  let fixture: OxpFixtureServer;
  let bridge: CliProcess;
  let config: string;
  const labelsAtUpstream = () =>
    fixture.requests.map((r) => (r.body as { request?: { input?: { label?: string } } } | undefined)?.request?.input?.label).filter(Boolean);
  const create = async (label: string) =>
    ((await rpc(bridge.url, 'tools/call', { name: 'wait', arguments: { label }, task: { ttl: 120_000 } })).task as { taskId: string }).taskId;
  const message = async (taskId: string) => (await rpc(bridge.url, 'tasks/get', { taskId })).statusMessage as string | undefined;
  const queuedGauge = async () => {
    const text = await (await fetch(new URL('/metrics', bridge.url))).text();
    const m = /^mcp_oxp_bridge_upstream_queued_calls\{upstream="default"\} (\d+)$/m.exec(text);
    return m ? Number(m[1]) : undefined;
  };

  before(async () => {
    fixture = await startOxpFixture({ tools: tools() });
    config = taskConfigFile(fixture.url, { upstream: { connections: 2 } });
    bridge = await startCli(['--config', config, '--port', '0', '--log-level', 'info'], {});
  });
  after(async () => {
    await bridge?.stop();
    await fixture?.close();
  });

  it('two of four long tasks wait: their statusMessage and the gauge say so; when a running one ends, the first waiting one runs and says so', async () => {
    const a = await create('a');
    const b = await create('b');
    await until(() => fixture.callCount('Wait.Long') === 2, 15_000, 'the first two calls reach the OXP server');
    const c = await create('c');
    const d = await create('d');
    for (const waiting of [c, d])
      await until(
        async () => /waiting in the bridge for a connection to upstream default/i.test((await message(waiting)) ?? ''),
        15_000,
        'the waiting task says so',
      );
    assert.equal(await message(a), undefined, 'a task whose call never waited says nothing of it');
    await until(async () => (await queuedGauge()) === 2, 15_000, 'the gauge counts the two waiting calls');
    assert.equal(fixture.callCount('Wait.Long'), 2, 'the waiting calls have not reached the OXP server');

    assert.equal((await rpc(bridge.url, 'tasks/cancel', { taskId: a })).status, 'cancelled');
    await until(() => fixture.callCount('Wait.Long') === 3, 15_000, "the first waiting task's call goes out once a connection frees");
    assert.deepEqual(labelsAtUpstream(), ['a', 'b', 'c'], 'first come, first served');
    await until(async () => /^Running: the call got a connection to upstream default/.test((await message(c)) ?? ''), 15_000, 'its message changes');
    assert.match((await message(d)) ?? '', /waiting in the bridge/i, 'the other still waits');
    await until(async () => (await queuedGauge()) === 1, 15_000, 'the gauge reads 1');
    for (const taskId of [b, c, d]) await rpc(bridge.url, 'tasks/cancel', { taskId });
    await until(async () => (await queuedGauge()) === 0, 15_000, 'a cancelled waiting call is not counted');
  });

  it('doctor --config notes that the task bounds exceed the connections, and passes', async () => {
    const out: string[] = [];
    const code = await runDoctor(['--config', config], cleanChildEnv(), (line) => out.push(line));
    const note = out.find((l) => l.includes('tasks: up to'));
    assert.match(note ?? out.join('\n'), /up to 10000 tasks may run at once \(tasks\.maxTasks 10000\) but 2 OXP calls can \(upstream\.connections\)/);
    assert.ok(note!.startsWith('  '), 'a note under a step, not a check');
    assert.equal(code, 0, out.join('\n'));
  });
});
