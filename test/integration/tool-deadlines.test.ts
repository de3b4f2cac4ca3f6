/**
 * Deadlines per tool: `toolSettings[].callTimeoutMs` bounds a tool's plain
 * calls, `taskCallTimeoutMs` the OXP call of its tasks, each over the
 * upstream's own; a task's deadline is its own, longer one. The bridge in
 * this process over HTTP, a real OXP fixture, raw 2025-11-25 requests.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startBridge, type RunningBridge } from '../../src/commands/forward.js';
import { createLogger } from '../../src/platform/log.js';
import { startOxpFixture, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { testConfig } from '../helpers/bridge-harness.js';
import { exchange } from '../helpers/it-http.js';
import { assertValidServerMessage } from '../helpers/mcp-schema.js';
import { taskFixtureTools } from '../helpers/task-fixtures.js';

describe('deadlines per upstream and per tool, plain calls and tasks', () => {
  let fixture: OxpFixtureServer;
  let bridge: RunningBridge;
  let id = 1;

  const post = async (method: string, params: Record<string, unknown>) => {
    const res = await exchange(bridge.mcpUrl!, { headers: { 'mcp-protocol-version': '2025-11-25' }, body: { jsonrpc: '2.0', id: id++, method, params } });
    for (const m of res.messages) assertValidServerMessage('2025-11-25', m, method);
    return res.messages[0]?.result as Record<string, unknown>;
  };
  const kind = (result: Record<string, unknown>) => (result._meta as Record<string, { kind?: string }> | undefined)?.['mcp-oxp-bridge/error']?.kind;

  before(async () => {
    fixture = await startOxpFixture({ tools: taskFixtureTools() });
    const config = testConfig(['--oxp-url', fixture.url]);
    config.upstream.retry.maxAttempts = 1;
    config.upstream.toolSettings = [
      // slow_work (1.5 s): 300 ms as a plain call, the upstream's task deadline (1 hour) as a task.
      { tools: ['slow_work'], callTimeoutMs: 300 },
      // research (0.5 s): 200 ms even as a task.
      { tools: ['Research.*'], taskCallTimeoutMs: 200 },
    ];
    config.tasks.pollIntervalMs = 100;
    bridge = await startBridge(config, createLogger('silent'));
  });
  after(async () => {
    await bridge?.close();
    await fixture?.close();
  });

  const awaitResult = async (taskId: string) => post('tasks/result', { taskId });

  it("a tool's own callTimeoutMs ends its plain call; the others keep the upstream's", async () => {
    // The call takes 1.5 s, the upstream's deadline is 5 minutes: only the tool's own 300 ms ends it.
    const slow = await post('tools/call', { name: 'slow_work', arguments: {} });
    assert.equal(kind(slow), 'upstream_timeout');
    const research = await post('tools/call', { name: 'research', arguments: { label: 'x' } });
    assert.equal((research.content as { text: string }[])[0]?.text, 'found x', "the upstream's 5-minute deadline");
  });

  it("a task's OXP call has its own deadline: longer by default, and per tool (taskCallTimeoutMs)", async () => {
    const slowTask = await post('tools/call', { name: 'slow_work', arguments: { label: 't' }, task: {} });
    const slow = await awaitResult((slowTask.task as { taskId: string }).taskId);
    assert.equal((slow.content as { text: string }[])[0]?.text, 'done t', 'the 1.5 s call completes as a task');
    const researchTask = await post('tools/call', { name: 'research', arguments: {}, task: {} });
    const research = await awaitResult((researchTask.task as { taskId: string }).taskId);
    assert.equal(kind(research), 'upstream_timeout', 'its 200 ms task deadline');
    assert.equal(research.isError, true);
  });
});
