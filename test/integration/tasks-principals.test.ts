/**
 * Who may see a task, and how tasks are seen and counted, against the real
 * CLI over HTTP with two named tokens: another principal's task answers
 * exactly as an unknown id (2025-11-25 and 2026-07-28), tasks/list shows
 * one's own; a rule's maxInFlight counts a task as in flight until it ends;
 * the audit trail records a task's creation and its end, the metrics count
 * tasks by state (re-drives 0), the per-call log line and the console's
 * Calls view name the task.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startOxpFixture, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { MODERN_META, modernHeaders } from '../helpers/bridge-harness.js';
import { startCli, type CliProcess } from '../helpers/cli-process.js';
import { exchange, type RawExchange } from '../helpers/it-http.js';
import { assertValidServerMessage } from '../helpers/mcp-schema.js';
import { taskFixtureTools, until } from '../helpers/task-fixtures.js';

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef0';
const EXT = 'io.modelcontextprotocol/tasks';

let nextId = 1;

async function legacy(url: string, token: string, method: string, params: Record<string, unknown>): Promise<RawExchange> {
  const res = await exchange(url, {
    headers: { authorization: `Bearer ${token}`, 'mcp-protocol-version': '2025-11-25' },
    body: { jsonrpc: '2.0', id: nextId++, method, params },
  });
  for (const m of res.messages) assertValidServerMessage('2025-11-25', m, method);
  return res;
}

async function modern(url: string, token: string, method: string, params: Record<string, unknown>): Promise<RawExchange> {
  const name = method === 'tools/call' ? (params.name as string) : (params.taskId as string | undefined);
  const res = await exchange(url, {
    headers: { ...modernHeaders(method, name), authorization: `Bearer ${token}` },
    body: {
      jsonrpc: '2.0',
      id: nextId++,
      method,
      params: { ...params, _meta: { ...MODERN_META, 'io.modelcontextprotocol/clientCapabilities': { extensions: { [EXT]: {} } } } },
    },
  });
  for (const m of res.messages) assertValidServerMessage('2026-07-28', m, method);
  return res;
}

const result = (res: RawExchange) => res.messages.find((m) => 'result' in m || 'error' in m)?.result as Record<string, unknown>;
const error = (res: RawExchange) => res.messages.find((m) => 'error' in m)?.error as { code: number; message: string } | undefined;

describe('tasks belong to their principal; seen and counted', () => {
  let fixture: OxpFixtureServer;
  let cli: CliProcess;
  let auditFile: string;

  before(async () => {
    fixture = await startOxpFixture({ tools: taskFixtureTools() });
    const dir = mkdtempSync(join(tmpdir(), 'bridge-task-principals-'));
    auditFile = join(dir, 'audit.jsonl');
    const config = join(dir, 'bridge.json');
    writeFileSync(
      config,
      JSON.stringify({
        upstream: { url: fixture.url },
        auth: {
          tokens: [
            { name: 'alice', value: { env: 'ALICE_TOKEN' } },
            { name: 'bob', value: { env: 'BOB_TOKEN' } },
          ],
        },
        access: { rules: [{ id: 'bob-one-at-a-time', effect: 'allow', principals: { names: ['bob'] }, limits: { maxInFlight: 1 } }] },
        audit: { sink: 'file', path: auditFile },
        tasks: { pollIntervalMs: 100, taskAfterMs: 200 },
      }),
    );
    cli = await startCli(['--config', config, '--port', '0', '--log-level', 'info'], { ALICE_TOKEN: ALICE, BOB_TOKEN: BOB });
  });
  after(async () => {
    await cli?.stop();
    await fixture?.close();
  });

  it("2025-11-25: another principal's tasks/get, tasks/result and tasks/cancel answer as for an unknown id; tasks/list shows one's own", async () => {
    const created = result(await legacy(cli.url, ALICE, 'tools/call', { name: 'slow_work', arguments: { label: 'mine' }, task: {} }));
    const taskId = (created.task as { taskId: string }).taskId;
    const unknown = 'B'.repeat(24);
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
      const foreign = error(await legacy(cli.url, BOB, method, { taskId }));
      const missing = error(await legacy(cli.url, BOB, method, { taskId: unknown }));
      assert.deepEqual(foreign, missing, method);
      assert.equal(foreign?.code, -32602);
    }
    assert.deepEqual((result(await legacy(cli.url, BOB, 'tasks/list', {})).tasks as unknown[]).length, 0);
    const mine = result(await legacy(cli.url, ALICE, 'tasks/list', {})).tasks as { taskId: string }[];
    assert.ok(mine.some((t) => t.taskId === taskId));
    // Bob's cancel changed nothing: Alice's task ends as it would have.
    const payload = result(await legacy(cli.url, ALICE, 'tasks/result', { taskId }));
    assert.equal((payload.content as { text: string }[])[0]?.text, 'done mine');
  });

  it("2026-07-28: another principal's tasks/get, tasks/update and tasks/cancel answer as for an unknown id", async () => {
    const created = result(await modern(cli.url, ALICE, 'tools/call', { name: 'slow_work', arguments: { label: 'm' } }));
    assert.equal(created.resultType, 'task');
    const taskId = created.taskId as string;
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const params = (id: string) => ({ taskId: id, ...(method === 'tasks/update' ? { inputResponses: {} } : {}) });
      const foreign = error(await modern(cli.url, BOB, method, params(taskId)));
      const missing = error(await modern(cli.url, BOB, method, params('C'.repeat(24))));
      assert.deepEqual(foreign, missing, method);
      assert.equal(foreign?.code, -32602);
    }
    assert.equal(result(await modern(cli.url, ALICE, 'tasks/get', { taskId })).taskId, taskId);
  });

  it("a task holds its rule's in-flight slot until it ends (maxInFlight 1)", async () => {
    const created = result(await legacy(cli.url, BOB, 'tools/call', { name: 'hang', arguments: {}, task: {} }));
    const taskId = (created.task as { taskId: string }).taskId;
    await until(() => fixture.callCount('Hang.Forever') > 0, 10_000, 'the task holds its slot');
    const refused = result(await legacy(cli.url, BOB, 'tools/call', { name: 'echo', arguments: { label: 'b' } }));
    assert.equal(refused.isError, true);
    assert.equal((refused._meta as Record<string, { kind: string }>)['mcp-oxp-bridge/error']?.kind, 'too_many_in_flight');
    // A task's call is decided and limited at its creation, through the call gate: refused, no task is made.
    const held = (result(await legacy(cli.url, BOB, 'tasks/list', {})).tasks as unknown[]).length;
    const refusedTask = error(await legacy(cli.url, BOB, 'tools/call', { name: 'echo', arguments: {}, task: {} }));
    assert.equal(refusedTask?.code, -32000);
    assert.match(refusedTask?.message ?? '', /at most 1/);
    assert.equal((result(await legacy(cli.url, BOB, 'tasks/list', {})).tasks as unknown[]).length, held, 'no task was made');
    assert.equal(result(await legacy(cli.url, BOB, 'tasks/cancel', { taskId })).status, 'cancelled');
    await until(
      async () => result(await legacy(cli.url, BOB, 'tools/call', { name: 'echo', arguments: { label: 'b' } })).isError !== true,
      10_000,
      'the slot is given back when the task ends',
    );
  });

  it('audit: a record at creation (task_created) and one at the end, both naming the task; metrics by state; the log line and the console name it', async () => {
    const created = result(await legacy(cli.url, ALICE, 'tools/call', { name: 'echo', arguments: { label: 'audit' }, task: {} }));
    const taskId = (created.task as { taskId: string }).taskId;
    const records = () =>
      readFileSync(auditFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { outcome: string; taskId?: string; principal: { name: string }; callId?: string });
    await until(() => records().filter((r) => r.taskId === taskId).length >= 2, 10_000, 'two audit records for the task');
    const [first, second] = records().filter((r) => r.taskId === taskId);
    assert.equal(first?.outcome, 'task_created');
    assert.equal(second?.outcome, 'success');
    assert.equal(first?.callId, second?.callId, 'the call_id fixed at creation is the one sent');
    assert.equal(first?.principal.name, 'alice');
    const metrics = await (await fetch(new URL('/metrics', cli.url))).text();
    assert.match(metrics, /mcp_oxp_bridge_tasks_total\{state="working"\} \d+/);
    assert.match(metrics, /mcp_oxp_bridge_tasks_total\{state="completed"\} \d+/);
    assert.match(metrics, /mcp_oxp_bridge_tasks_total\{state="cancelled"\} \d+/);
    assert.match(metrics, /mcp_oxp_bridge_task_redrives_total 0/);
    await until(() => cli.logs.some((l) => l.includes('"tool call"') && l.includes(`"task_id":"${taskId}"`)), 5000, 'the call log line names the task');
    const calls = (await (await fetch(new URL('/console/api/calls?limit=50', cli.url), { headers: { authorization: `Bearer ${ALICE}` } })).json()) as {
      recent: { task: { id: string; state: string } | null }[];
    };
    assert.ok(
      calls.recent.some((c) => c.task?.id === taskId && c.task.state === 'completed'),
      JSON.stringify(calls.recent.slice(0, 3)),
    );
  });
});
