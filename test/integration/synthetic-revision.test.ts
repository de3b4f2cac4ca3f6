/**
 * A new MCP revision is one edit (issue 38): a revision registered in src/core/mcp-versions.ts alone — SYNTHETIC,
 * 2026-07-28's rules under 2027-03-30 (test/helpers/synthetic-revision.ts, which also stands in for what a real one
 * takes outside src/: its schema and an SDK release that serves it) — and the suites run against it:
 * - projection and schema: the golden suites (every OXP case projected for SYNTHETIC, equal to 2026-07-28's golden
 *   files and valid against its schema, closed), src/core/project.test.ts's cases;
 * - differential: test/integration/differential.test.ts, whose modern requests now claim SYNTHETIC
 *   (test/helpers/modern-revision.ts), the bridge against a plain SDK server, near misses included, and
 *   src/forward/face/hot-classify.test.ts (the bridge's own check against the SDK classifier);
 * - a real client: http-clients.test.ts's cases for the v2 SDK client pinned to SYNTHETIC, every message it
 *   receives valid against the revision's schema and every result of the revision's shape (it-cases.ts);
 * - tasks: test/integration/tasks-2026.test.ts, its raw requests claiming SYNTHETIC to the CLI as a child process
 *   (which imports synthetic-revision.ts first: ts-entry.ts `CLI_PRELOADS`), over HTTP and stdio, each answer valid
 *   against the revision's schema and the extension's; and below, the bridge in this process: advertised, a
 *   `required` tool's call a task at once, tasks/get to its end, each request counted under SYNTHETIC.
 *
 * The imports below are in this order on purpose: synthetic-revision.js registers SYNTHETIC before any suite
 * module is evaluated.
 */
import { RULES_OF, SYNTHETIC } from '../helpers/synthetic-revision.js';
import '../golden/golden.test.js';
import '../golden/mcp-round-trip.test.js';
import '../../src/core/project.test.js';
import './differential.test.js';
import './tasks-2026.test.js';
import '../../src/forward/face/hot-classify.test.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eraOfClaim, effectiveRevision, MCP_REVISIONS, newestRevision, profileFor } from '../../src/core/mcp-versions.js';
import { startBridge, type RunningBridge } from '../../src/commands/forward.js';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/platform/log.js';
import { startOxpFixture, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { MODERN_META, modernHeaders } from '../helpers/bridge-harness.js';
import { exchange, type RawExchange } from '../helpers/it-http.js';
import { assertValidServerMessage } from '../helpers/mcp-schema.js';
import { MODERN_REVISION } from '../helpers/modern-revision.js';
import { taskConfigFile, taskFixtureTools } from '../helpers/task-fixtures.js';
import { integrationTools, startHttpBridge, type HttpBridge } from '../helpers/it-bridge.js';
import { defineClientCases } from '../helpers/it-cases.js';
import { connectHttp, spec, type McpSession } from '../helpers/it-clients.js';

const EXT = 'io.modelcontextprotocol/tasks';

describe(`a revision registered in the table alone: ${SYNTHETIC} with ${RULES_OF}'s rules`, () => {
  it('is in the table, the newest, with the rules it was given, and the suites speak it', () => {
    assert.equal(newestRevision(), SYNTHETIC);
    assert.ok(MCP_REVISIONS.includes(SYNTHETIC));
    assert.deepEqual({ ...profileFor(SYNTHETIC), revision: RULES_OF }, profileFor(RULES_OF));
    assert.equal(eraOfClaim(SYNTHETIC), 'modern');
    assert.equal(effectiveRevision(SYNTHETIC), SYNTHETIC);
    // A modern date between the two is neither: the older's rules, never fields newer than the peer asked for.
    assert.equal(effectiveRevision('2026-12-01'), RULES_OF);
    assert.equal(MODERN_REVISION, SYNTHETIC, 'the raw-request suites claim it (modern-revision.ts)');
  });
});

describe(`MCP tasks at ${SYNTHETIC} (the extension's flavour, the bridge in this process)`, () => {
  let fixture: OxpFixtureServer;
  let bridge: RunningBridge;
  let url: string;

  before(async () => {
    fixture = await startOxpFixture({ tools: taskFixtureTools() });
    const loaded = loadConfig(['--config', taskConfigFile(fixture.url), '--port', '0', '--log-level', 'silent'], {});
    if (typeof loaded === 'string') throw new Error(loaded);
    bridge = await startBridge(loaded.config, createLogger('silent'));
    url = bridge.mcpUrl!;
  });
  after(async () => {
    await bridge?.close();
    await fixture?.close();
  });

  /** One request at SYNTHETIC declaring the extension, its answer valid against SYNTHETIC's schemas. */
  async function call(method: string, params: Record<string, unknown>, name?: string): Promise<RawExchange> {
    const res = await exchange(url, {
      headers: modernHeaders(method, name),
      body: {
        jsonrpc: '2.0',
        id: 1,
        method,
        params: { ...params, _meta: { ...MODERN_META, 'io.modelcontextprotocol/clientCapabilities': { extensions: { [EXT]: {} } } } },
      },
    });
    assert.equal(res.status, 200, `${method}: ${res.text.slice(0, 300)}`);
    for (const message of res.messages) assertValidServerMessage(SYNTHETIC, message, method);
    return res;
  }
  const resultOf = (res: RawExchange) => res.messages[0]?.result as Record<string, unknown>;

  it('server/discover lists it and advertises the extension, not core tasks', async () => {
    const discover = resultOf(await call('server/discover', {}));
    assert.ok((discover.supportedVersions as string[]).includes(SYNTHETIC), JSON.stringify(discover.supportedVersions));
    const capabilities = discover.capabilities as Record<string, unknown>;
    assert.deepEqual(capabilities.extensions, { [EXT]: {} });
    assert.equal(capabilities.tasks, undefined);
  });

  it("tools/list: 2026-07-28's fields (resultType, cache fields), no per-tool execution", async () => {
    const list = resultOf(await call('tools/list', {}));
    assert.equal(list.resultType, 'complete');
    const tools = list.tools as Record<string, unknown>[];
    assert.ok(tools.length >= 6 && tools.every((t) => !('execution' in t)));
  });

  it("a required tool's call is a task at once; tasks/get follows it to its result", async () => {
    const created = resultOf(await call('tools/call', { name: 'research', arguments: { label: 'x' } }, 'research'));
    assert.equal(created.resultType, 'task');
    const taskId = created.taskId as string;
    const end = Date.now() + 15_000;
    let task = created;
    while (task.status === 'working') {
      assert.ok(Date.now() < end, `task ${taskId} still working`);
      await new Promise((r) => setTimeout(r, 50));
      task = resultOf(await call('tasks/get', { taskId }, taskId));
    }
    assert.equal(task.status, 'completed');
    assert.deepEqual((task.result as { content: unknown[] }).content, [{ type: 'text', text: 'found x' }]);
  });

  it(`the bridge resolved each request to ${SYNTHETIC} itself, not to ${RULES_OF} (metrics by protocol version)`, async () => {
    const metrics = await (await fetch(new URL('/metrics', url))).text();
    const counted = (method: string, version: string) =>
      metrics.split('\n').some((line) => line.includes(`method="${method}"`) && line.includes(`protocol_version="${version}"`));
    assert.ok(counted('tools/list', SYNTHETIC) && counted('tools/call', SYNTHETIC), metrics.slice(0, 2000));
    assert.ok(!counted('tools/list', RULES_OF) && !counted('tools/call', RULES_OF));
  });
});

describe(`the v2 SDK client pinned to ${SYNTHETIC} (http-clients.test.ts's cases)`, () => {
  let fixture: OxpFixtureServer;
  let bridge: HttpBridge;
  let session: McpSession;
  const client = spec('v2-modern', SYNTHETIC);
  before(async () => {
    fixture = await startOxpFixture({ tools: integrationTools() });
    bridge = await startHttpBridge(fixture.url);
    session = await connectHttp(client, bridge.mcpUrl);
  });
  after(async () => {
    await session?.close();
    await bridge?.close();
    await fixture?.close();
  });
  defineClientCases(client, () => session, integrationTools);
});
