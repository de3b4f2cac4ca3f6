/**
 * The oxp-server against hostile 2025-11-25 task servers (mcp-scenarios/tasks.ts, raw JSON-RPC over stdio): a
 * pollInterval of 0 is no busy loop, a malformed or foreign task is one clear answer (and the task is cancelled),
 * a tasks/result that never comes ends at the task deadline.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestOxpServer, writeConfigFile, type TestOxpServer } from '../helpers/oxp-server-harness.js';
import { hostileMcpCommand } from './hostile-mcp-server.js';

const TASK_CALL_TIMEOUT_MS = 3_000;
const SCENARIOS = { Busy: 'task-busy-poll', BadStatus: 'task-bad-status', OtherId: 'task-other-id', Silent: 'task-silent-result' };

describe('oxp-server: hostile MCP task servers', () => {
  let server: TestOxpServer;
  before(async () => {
    const upstreams = Object.entries(SCENARIOS).map(([toolkit, scenario]) => ({ toolkit, ...hostileMcpCommand(scenario) }));
    const config = { oxpServer: { upstreams, connectTimeoutMs: 60_000, taskCallTimeoutMs: TASK_CALL_TIMEOUT_MS } };
    server = await startTestOxpServer(['--config', writeConfigFile(config)]);
  });
  after(async () => {
    await server?.close();
  });

  it('a pollInterval of 0 is polled at 100 ms at most, not in a busy loop', async () => {
    const result = await server.client.result('Busy.job', {});
    assert.equal(result.success, true, JSON.stringify(result));
    const [, shortest] = /shortest gap (\d+) ms/.exec(String(result.value)) ?? [];
    assert.ok(Number(shortest) >= 90, String(result.value));
  });

  it('a task status no revision defines, or a task of another id, is one clear tool error', async () => {
    for (const [toolkit, why] of [
      ['BadStatus', /status "banana" is not a task status/],
      ['OtherId', /answered for another task \(someone-elses-task\)/],
    ] as const) {
      const result = await server.client.result(`${toolkit}.job`, {});
      assert.equal(result.success, false);
      const error = result.error as { message: string; developer_message?: string };
      assert.equal(error.message, 'The tool server answered the call in a way the bridge could not understand.');
      assert.match(String(error.developer_message), why);
    }
  });

  it('a tasks/result that never answers ends at the task deadline', async () => {
    const started = Date.now();
    const result = await server.client.result('Silent.job', {});
    const took = Date.now() - started;
    assert.deepEqual([result.success, result.error], [false, { message: 'The tool did not finish in time.', can_retry: true }]);
    assert.ok(took >= TASK_CALL_TIMEOUT_MS - 100 && took < TASK_CALL_TIMEOUT_MS + 5_000, `${took} ms`);
  });
});
