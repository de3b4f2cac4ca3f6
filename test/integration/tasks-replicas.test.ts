/**
 * Tasks answered by any replica: three bridge processes behind a real round-robin nginx share their tasks through a
 * real Redis (store.redis). A task created on one replica is read, awaited (tasks/result) and cancelled through any
 * other, and a cancel reaches the replica running its OXP call (the OXP server sees the connection close). When the
 * replica running a task is killed (SIGKILL) mid-call, another one takes the task over once its lease lapses and
 * sends the same OXP call again — the OXP server sees the same call_id twice — and the task completes: nothing lost.
 * Every message is checked against the 2025-11-25 schema.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startOxpFixture, type FixtureTool, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { startCli, type CliProcess } from '../helpers/cli-process.js';
import { assertValidServerMessage } from '../helpers/mcp-schema.js';
import { requireNginx, startNginx, type Nginx } from '../helpers/nginx.js';
import { requireRedisServer, startRedis, type TestRedis } from '../helpers/redis-server.js';
import { taskConfigFile, until } from '../helpers/task-fixtures.js';
import { listen } from '../helpers/task-listen.js';
import { MODERN_META, modernHeaders, readMessages } from '../helpers/bridge-harness.js';

const nginx = requireNginx();
const redisMissing = requireRedisServer().why;
const TOKEN = 'replicas-token-0123456789abcdef0123';
const OTHER = 'replicas-other-0123456789abcdef0123';
const VERSION = '2025-11-25';
const EXT = 'io.modelcontextprotocol/tasks';

/** `slow` takes 6 s unless told otherwise; `hang` a minute. */
function tools(): FixtureTool[] {
  const schema = { type: 'object', properties: { ms: { type: 'integer' } } };
  return [
    {
      id: 'Slow.Work',
      name: 'slow',
      version: '1.0.0',
      input_schema: schema,
      handler: (req) => ({ delayMs: Number((req.input as { ms?: number } | undefined)?.ms ?? 6_000), then: { value: `done ${String(req.call_id)}` } }),
    },
    { id: 'Hang.Forever', name: 'hang', version: '1.0.0', input_schema: schema, handler: () => ({ delayMs: 60_000, then: { value: 'too late' } }) },
  ];
}

/** One JSON-RPC exchange at 2025-11-25 (stateless: every replica answers from the request alone). */
async function rpc(url: string, method: string, params: Record<string, unknown>, token = TOKEN): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': VERSION,
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  const body = (text.startsWith('{') ? JSON.parse(text) : JSON.parse(/^data: (.*)$/m.exec(text)![1]!)) as Record<string, unknown>;
  assertValidServerMessage(VERSION, body);
  return body;
}

const resultOf = (reply: Record<string, unknown>) => {
  assert.ok(reply.result, JSON.stringify(reply));
  return reply.result as Record<string, unknown>;
};

describe('tasks across three replicas sharing a Redis', { skip: nginx.why ?? redisMissing ?? false }, () => {
  let redis: TestRedis;
  let fixture: OxpFixtureServer;
  let replicas: CliProcess[] = [];
  let proxy: Nginx;

  before(async () => {
    redis = await startRedis();
    fixture = await startOxpFixture({ tools: tools() });
    const config = taskConfigFile(fixture.url, {
      auth: {
        tokens: [
          { name: 'alice', value: { env: 'ALICE_TOKEN' } },
          { name: 'bob', value: { env: 'BOB_TOKEN' } },
        ],
      },
      http: { allowedHosts: ['127.0.0.1', 'localhost'] },
      store: { redis: { url: redis.url } },
      tasks: { leaseMs: 1_500 },
    });
    const env = { ALICE_TOKEN: TOKEN, BOB_TOKEN: OTHER, MCP_SESSION_SECRET: 'replicas-share-only-this-secret-0123456789' };
    replicas = await Promise.all([0, 1, 2].map(() => startCli(['--config', config, '--port', '0', '--log-level', 'info'], env)));
    proxy = await startNginx(
      nginx.path!,
      replicas.map((r) => r.url),
    );
    // Every replica has its catalog before the first call goes through nginx.
    for (const r of replicas) await until(async () => (await fetch(new URL('/readyz', r.url))).status === 200, 30_000, 'ready');
  });
  after(async () => {
    proxy?.close();
    await Promise.all(replicas.map((r) => r.stop()));
    await fixture?.close();
    await redis?.close();
  });

  it('created on one replica: read, awaited and listed through the others; another principal sees nothing', async () => {
    const created = resultOf(await rpc(replicas[0]!.url, 'tools/call', { name: 'slow', arguments: { ms: 1_500 }, task: { ttl: 60_000 } }));
    const taskId = (created.task as { taskId: string }).taskId;
    const seen = resultOf(await rpc(replicas[1]!.url, 'tasks/get', { taskId }));
    assert.equal(seen.taskId, taskId);
    const listed = resultOf(await rpc(proxy.url, 'tasks/list', {}));
    assert.ok((listed.tasks as { taskId: string }[]).some((t) => t.taskId === taskId));
    const foreign = await rpc(replicas[1]!.url, 'tasks/get', { taskId }, OTHER);
    assert.equal((foreign.error as { code: number }).code, -32602, 'another principal: as an unknown task');
    const result = resultOf(await rpc(replicas[2]!.url, 'tasks/result', { taskId }));
    assert.match(JSON.stringify(result.content), /done /);
  });

  it('cancelled through another replica: the replica running the OXP call aborts it (the OXP server sees the connection close)', async () => {
    const created = resultOf(await rpc(replicas[0]!.url, 'tools/call', { name: 'hang', arguments: {}, task: { ttl: 60_000 } }));
    const taskId = (created.task as { taskId: string }).taskId;
    await until(() => fixture.callCount('Hang.Forever') > 0, 10_000, 'the OXP call starts');
    const abandoned = fixture.abandonedCalls.length;
    const cancelled = resultOf(await rpc(replicas[2]!.url, 'tasks/cancel', { taskId }));
    assert.equal(cancelled.status, 'cancelled');
    await until(() => fixture.abandonedCalls.length > abandoned, 10_000, 'the OXP server sees the connection close');
    assert.equal(resultOf(await rpc(replicas[1]!.url, 'tasks/get', { taskId })).status, 'cancelled');
  });

  it('2026-07-28: a task made on one replica, followed on another (subscriptions/listen): its notifications to its end; another principal is agreed nothing', async () => {
    const created = await fetch(replicas[0]!.url, {
      method: 'POST',
      headers: { ...modernHeaders('tools/call', 'slow'), authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'slow',
          arguments: { ms: 4_000 },
          _meta: { ...MODERN_META, 'io.modelcontextprotocol/clientCapabilities': { extensions: { [EXT]: {} } } },
        },
      }),
    });
    const [task] = (await readMessages(created)) as { result?: { resultType?: string; taskId?: string } }[];
    assertValidServerMessage('2026-07-28', task, 'tools/call');
    assert.equal(task?.result?.resultType, 'task', JSON.stringify(task));
    const taskId = task.result.taskId!;
    const foreign = await listen(replicas[1]!.url, 7, { taskIds: [taskId] }, true, (m) => m.some((x) => x.id === 7), { authorization: `Bearer ${OTHER}` });
    assert.deepEqual((foreign[0]!.params as { notifications: unknown }).notifications, { taskIds: [] }, 'bob is agreed nothing of alice’s task');
    const followed = await listen(replicas[2]!.url, 8, { taskIds: [taskId] }, true, (m) => m.some((x) => x.id === 8), { authorization: `Bearer ${TOKEN}` });
    assert.deepEqual((followed[0]!.params as { notifications: unknown }).notifications, { taskIds: [taskId] });
    const statuses = followed.filter((m) => m.method === 'notifications/tasks').map((m) => (m.params as { status: string }).status);
    assert.equal(statuses[0], 'working');
    assert.equal(statuses.at(-1), 'completed', 'the end, written by replica 0, reaches the listen on replica 2');
  });

  it('the replica running a task is killed (SIGKILL): another re-drives it with the same call_id once its lease lapses, and it completes', async () => {
    const victim = replicas[1]!;
    const created = resultOf(await rpc(victim.url, 'tools/call', { name: 'slow', arguments: { ms: 3_000 }, task: { ttl: 120_000 } }));
    const taskId = (created.task as { taskId: string }).taskId;
    const slowCalls = () => fixture.requests.filter((r) => r.path.endsWith('/tools/call') && JSON.stringify(r.body).includes('Slow.Work'));
    const before = slowCalls().length;
    await until(() => slowCalls().length > before, 10_000, 'the OXP call starts on the victim');
    const callIdOf = (r: { body?: unknown }) => (r.body as { request: { call_id: string } }).request.call_id;
    const callId = callIdOf(slowCalls().at(-1)!);
    assert.match(callId, /^[\w-]{8,}$/, 'the OXP call carries its call_id');
    victim.child.kill('SIGKILL');
    await victim.exited;
    // Through nginx, whichever replica is alive answers: working until a survivor takes over, then completed.
    let status = '';
    await until(
      async () => {
        const reply = await rpc(proxy.url, 'tasks/get', { taskId }).catch(() => undefined);
        status = String((reply?.result as { status?: string } | undefined)?.status ?? status);
        return status === 'completed';
      },
      30_000,
      'the task completes on a surviving replica',
    );
    const sent = slowCalls().slice(before).map(callIdOf);
    assert.deepEqual(sent, [callId, callId], 'the OXP server saw the same call_id twice: the first call and the re-drive');
    const result = resultOf(await rpc(replicas[0]!.url, 'tasks/result', { taskId }));
    assert.match(JSON.stringify(result.content), new RegExp(`done ${callId}`));
    const metrics = await Promise.all([replicas[0]!, replicas[2]!].map(async (r) => (await fetch(new URL('/metrics', r.url))).text()));
    assert.ok(
      metrics.some((m) => /mcp_oxp_bridge_task_redrives_total [1-9]/.test(m)),
      'the re-drive is counted',
    );
    const lines = [replicas[0]!, replicas[2]!].flatMap((r) => r.logs).filter((l) => l.includes('task re-driven') && l.includes(taskId));
    assert.equal(lines.length, 1, `one warn line for the one re-drive: ${lines.join('\n')}`);
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    assert.deepEqual([line.level, line.task_id, line.call_id], [40, taskId, callId], 'at warn (40), naming the task and its call_id');
  });
});
