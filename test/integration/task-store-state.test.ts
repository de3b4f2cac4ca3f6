/**
 * Tasks say when they cannot be created (issue 37): the real CLI with its task store in a real redis-server, which is
 * frozen (SIGSTOP) and resumed. While Redis does not answer, a task creation is refused (-32000
 * task_store_unavailable); /readyz stays 200 and says `taskStore.available: false`; /metrics has
 * mcp_oxp_bridge_task_store_up 0; one warn line says so; doctor names it. Once Redis answers: all of it turns back,
 * with one info line.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runDoctor } from '../../src/commands/doctor/doctor.js';
import { startOxpFixture, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { startCli, type CliProcess } from '../helpers/cli-process.js';
import { requireRedisServer, startRedis, type TestRedis } from '../helpers/redis-server.js';
import { taskConfigFile, taskFixtureTools, until } from '../helpers/task-fixtures.js';

const redisMissing = requireRedisServer().why;

async function createTask(url: string): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'research', arguments: { label: 'x' }, task: { ttl: 60_000 } } }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  return JSON.parse(text.startsWith('{') ? text : /^data: (.*)$/m.exec(text)![1]!) as Record<string, unknown>;
}

async function readyz(url: string): Promise<{ status: number; body: { taskStore?: { available: boolean; since: string } } }> {
  const res = await fetch(new URL('/readyz', url));
  return { status: res.status, body: (await res.json()) as { taskStore?: { available: boolean; since: string } } };
}

const storeUp = async (url: string) => /^mcp_oxp_bridge_task_store_up (\d)$/m.exec(await (await fetch(new URL('/metrics', url))).text())?.[1];

async function doctorLines(url: string): Promise<string[]> {
  const out: string[] = [];
  await runDoctor(['--url', url], {}, (line) => out.push(line));
  return out
    .join('\n')
    .split('\n')
    .filter((l) => l.includes('task store'));
}

describe('the task store state an operator sees', { skip: redisMissing ?? false }, () => {
  let redis: TestRedis;
  let fixture: OxpFixtureServer;
  let bridge: CliProcess;

  before(async () => {
    redis = await startRedis();
    fixture = await startOxpFixture({ tools: taskFixtureTools() });
    const config = taskConfigFile(fixture.url, { store: { redis: { url: redis.url, commandTimeoutMs: 300 } } });
    bridge = await startCli(['--config', config, '--port', '0', '--log-level', 'info'], {});
    await until(async () => (await readyz(bridge.url)).status === 200, 30_000, 'ready');
  });
  after(async () => {
    redis?.thaw();
    await bridge?.stop();
    await fixture?.close();
    await redis?.close();
  });

  it('Redis frozen: creations refused, /readyz 200 saying so, the metric 0, one warn line, doctor names it; then all back, one info line', async () => {
    assert.ok((await createTask(bridge.url)).result, 'a task is created while Redis answers');
    assert.equal((await readyz(bridge.url)).body.taskStore?.available, true);
    assert.equal(await storeUp(bridge.url), '1');
    redis.freeze();
    try {
      const refused = await createTask(bridge.url);
      assert.equal((refused.error as { code?: number } | undefined)?.code, -32000, JSON.stringify(refused));
      assert.equal(((refused.error as { data?: { kind?: string } }).data ?? {}).kind, 'task_store_unavailable');
      const ready = await readyz(bridge.url);
      assert.equal(ready.status, 200, 'still ready: plain calls and held tasks go on');
      assert.equal(ready.body.taskStore?.available, false);
      assert.equal(await storeUp(bridge.url), '0');
      const [line] = await doctorLines(bridge.url);
      assert.match(line ?? '', /^✗ task store \(Redis\): does not answer since .*new tasks are refused/);
    } finally {
      redis.thaw();
    }
    await until(async () => (await readyz(bridge.url)).body.taskStore?.available === true, 15_000, 'available again');
    assert.equal(await storeUp(bridge.url), '1');
    assert.match((await doctorLines(bridge.url))[0] ?? '', /^✓ task store \(Redis\): answers/);
    const told = () => bridge.logs.filter((l) => l.includes('task store (Redis)'));
    await until(() => told().length >= 2, 15_000, 'the line saying it answers again (the log is written in batches)');
    const said = told().map((l) => JSON.parse(l) as { level: number; msg: string });
    assert.deepEqual(
      said.map((l) => l.level),
      [40, 30],
      'one warn line when it stopped answering, one info line when it answered again',
    );
  });
});
