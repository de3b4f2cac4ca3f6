/**
 * Taking over a task whose runner died (its lease lapsed): the replica that
 * claims it sends the same OXP call again, with the call_id fixed at the
 * task's creation, and the task completes for its owner. The memory store
 * stands in here for a store shared by replicas (the Redis store runs the
 * same contract, test/helpers/task-store-contract.ts); the record is the one
 * a replica that died would have left: leased to a holder that never renews.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { newTaskId } from '../../src/calls/tasks/ids.js';
import { ownerKey, workPrincipal, type ForwardWork } from '../../src/calls/tasks/records.js';
import { startBridge, type RunningBridge } from '../../src/commands/forward.js';
import { anonymousPrincipal } from '../../src/core/principal.js';
import { createLogger } from '../../src/platform/log.js';
import { startOxpFixture, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { testConfig } from '../helpers/bridge-harness.js';
import { exchange } from '../helpers/it-http.js';
import { assertValidServerMessage } from '../helpers/mcp-schema.js';
import { taskConfigFile, taskFixtureTools } from '../helpers/task-fixtures.js';
import { until } from '../helpers/bridge-harness.js';
import { isTerminal } from '../../src/calls/tasks/store.js';

/** A 2025-11-25 task of the anonymous caller, as a replica left it when it died: its 100 ms lease about to lapse. */
async function orphanTask(bridge: RunningBridge, callId: string): Promise<string> {
  const anonymous = anonymousPrincipal();
  const taskId = newTaskId();
  const work: ForwardWork = {
    direction: 'forward',
    revision: '2025-11-25',
    tool: 'research',
    arguments: { label: 'again' },
    callId,
    principal: workPrincipal(anonymous),
    urlElicitation: false,
  };
  const created = await bridge.bridge.tasks!.lifecycle.store.create(
    { taskId, owner: ownerKey(anonymous), ttlMs: 60_000, pollIntervalMs: 100, work: work as unknown as Record<string, unknown> },
    'a-replica-that-died',
    100,
  );
  assert.ok(created.ok);
  return taskId;
}

describe('a task whose runner died is re-driven with the same call_id', () => {
  let fixture: OxpFixtureServer;
  let bridge: RunningBridge;

  const auditFile = join(mkdtempSync(join(tmpdir(), 'redrive-audit-')), 'audit.jsonl');

  before(async () => {
    fixture = await startOxpFixture({ tools: taskFixtureTools() });
    bridge = await startBridge(testConfig(['--oxp-url', fixture.url, '--audit-file', auditFile]), createLogger('silent'));
  });
  after(async () => {
    await bridge?.close();
    await fixture?.close();
    rmSync(dirname(auditFile), { recursive: true, force: true });
  });

  it('claimed once its lease lapses, run again, completed; tasks/result answers its owner; the re-drive is counted', async () => {
    const tasks = bridge.bridge.tasks!;
    const anonymous = anonymousPrincipal();
    const callId = randomUUID();
    const taskId = await orphanTask(bridge, callId);
    const stop = tasks.lifecycle.redriveLapsed(50, (record) => tasks.resume(record));
    try {
      const res = await exchange(bridge.mcpUrl!, {
        headers: { 'mcp-protocol-version': '2025-11-25' },
        body: { jsonrpc: '2.0', id: 1, method: 'tasks/result', params: { taskId } },
      });
      const message = res.messages[0]!;
      assertValidServerMessage('2025-11-25', message, 'tasks/result');
      const result = message.result as { content: { text: string }[] };
      assert.equal(result.content[0]?.text, 'found again');
      const sent = fixture.requests.filter((r) => r.path.endsWith('/tools/call')).map((r) => (r.body as { request: { call_id: string } }).request.call_id);
      assert.deepEqual(sent, [callId], 'the OXP server saw the call_id fixed at creation');
      const record = await tasks.lifecycle.store.get(taskId, ownerKey(anonymous));
      assert.equal(record?.redrives, 1);
      assert.equal(record?.status, 'completed');
      const metrics = await (await fetch(new URL('/metrics', bridge.mcpUrl))).text();
      assert.match(metrics, /mcp_oxp_bridge_task_redrives_total 1/);
      await bridge.audit.flush();
      const records = readFileSync(auditFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const event = records.find((r) => r.type === 'task');
      assert.deepEqual(
        { event: event?.event, taskId: event?.taskId, callId: event?.callId, tool: event?.tool, redrives: event?.redrives, replica: event?.replica },
        { event: 'redrive', taskId, callId, tool: 'research', redrives: 1, replica: tasks.lifecycle.holder },
        'one audit record names the re-drive, its task and its call_id',
      );
    } finally {
      stop();
    }
  });
});

describe('a re-drive is the same call: no limit refuses it', () => {
  it("the re-driven call runs though the caller's one slot (access.maxInFlightPerPrincipal 1) is taken: it was charged when the task was created", async () => {
    const fixture = await startOxpFixture({ tools: taskFixtureTools() });
    const bridge = await startBridge(testConfig(['--config', taskConfigFile(fixture.url, { access: { maxInFlightPerPrincipal: 1 } })]), createLogger('silent'));
    try {
      const tasks = bridge.bridge.tasks!;
      const anonymous = anonymousPrincipal();
      // The caller's one slot, held by a plain call that runs for a minute.
      const holding = exchange(bridge.mcpUrl!, {
        headers: { 'mcp-protocol-version': '2025-06-18' },
        body: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'hang', arguments: {} } },
      }).catch(() => undefined);
      await until(() => fixture.requests.some((r) => String(JSON.stringify(r.body)).includes('Hang.Forever')), 10_000);
      const taskId = await orphanTask(bridge, randomUUID());
      const stop = tasks.lifecycle.redriveLapsed(50, (record) => tasks.resume(record));
      try {
        await until(async () => isTerminal((await tasks.lifecycle.store.get(taskId, ownerKey(anonymous)))?.status ?? 'working'), 15_000);
        const record = await tasks.lifecycle.store.get(taskId, ownerKey(anonymous));
        assert.equal(record?.status, 'completed', JSON.stringify(record?.outcome));
      } finally {
        stop();
      }
      void holding;
    } finally {
      await bridge.close();
      await fixture.close();
    }
  });
});
