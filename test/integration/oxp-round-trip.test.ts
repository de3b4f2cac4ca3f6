/**
 * Both directions chained: an OXP client → bridge (oxp-server) → bridge
 * (MCP face over Streamable HTTP, started in-process with startBridge) →
 * the OXP fixture server. Definitions, values, tool errors and their retry
 * hints, transient upstream failures and authorization challenges survive
 * both hops.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from '../helpers/bridge-harness.js';
import { demoFixtureTools, type FixtureTool } from '../fixtures/oxp-fixture-server.js';
import { startTestOxpServer, writeConfigFile, type OxpClient, type TestOxpServer } from '../helpers/oxp-server-harness.js';

const AUTH_URL = 'https://accounts.example.com/o/oauth2/auth?state=round-trip';

function extraTools(): FixtureTool[] {
  const empty = { type: 'object', properties: {} };
  return [
    {
      id: 'Flaky.Fetch',
      name: 'Flaky_Fetch',
      description: 'Its server is overloaded.',
      version: '1.0.0',
      input_schema: empty,
      handler: () => ({ http: { status: 503, body: 'overloaded', headers: { 'retry-after': '7' } } }),
    },
    {
      id: 'Gmail.Send',
      name: 'Gmail_Send',
      description: 'Needs Google authorization.',
      version: '1.0.0',
      input_schema: empty,
      requirements: { authorization: [{ id: 'google' }] },
      handler: () => ({
        http: { status: 400, body: { message: 'Authorization required', missing_requirements: { authorization: [{ id: 'google', url: AUTH_URL }] } } },
      }),
    },
  ];
}

describe('round trip: OXP client → oxp-server → MCP face → OXP server', () => {
  let inner: Harness;
  let outer: TestOxpServer;
  let client: OxpClient;
  let tools: Record<string, unknown>[];

  before(async () => {
    // The inner bridge answers at once (no retries of its own), so its retry hints are what the outer client sees.
    inner = await startHarness({
      fixture: { tools: [...demoFixtureTools(), ...extraTools()] },
      args: ['--config', writeConfigFile({ upstream: { retry: { maxAttempts: 1 } } })],
    });
    outer = await startTestOxpServer(['--mcp-url', `Inner=${inner.mcpUrl}`]);
    client = outer.client;
    tools = await client.list();
  });
  after(async () => {
    await outer?.close();
    await inner?.close();
  });

  it('the outer bridge speaks 2026-07-28 to the inner one', () => {
    assert.equal(outer.upstreams.status()[0]!.era, 'modern');
  });

  it('definitions survive: original versions (from the tool metadata), input and output schemas, descriptions', () => {
    const byId = new Map(tools.map((t) => [String(t.id), t]));
    const original = new Map(demoFixtureTools().map((t) => [`${t.id}@${t.version}`, t]));
    const expectations: [string, string][] = [
      ['Inner.Calculator_Add@2.0.0', 'Calculator.Add@2.0.0'],
      ['Inner.Doorbell_Ring@0.1.0', 'Doorbell.Ring@0.1.0'],
      ['Inner.List_Numbers@1.0.0', 'List.Numbers@1.0.0'],
      ['Inner.Text_Echo@1.0.0', 'Text.Echo@1.0.0'],
      ['Inner.Schema_Strict@1.0.0', 'Schema.Strict@1.0.0'],
    ];
    for (const [outerId, innerId] of expectations) {
      const got = byId.get(outerId);
      const want = original.get(innerId)!;
      assert.ok(got, `${outerId} listed (have ${[...byId.keys()].join(', ')})`);
      assert.equal(got.description, want.description, outerId);
      assert.deepEqual(got.input_schema, want.input_schema, outerId);
      if (want.output_schema) assert.deepEqual(got.output_schema, want.output_schema, outerId);
      else assert.ok(!('output_schema' in got), outerId);
    }
  });

  it('values survive: objects, arrays, strings, numbers and null', async () => {
    assert.deepEqual((await client.result('Inner.Calculator_Add', { a: 2, b: 3 })).value, { sum: 5 });
    assert.deepEqual((await client.result('Inner.List_Numbers', {})).value, [1, 2, 3]);
    assert.equal((await client.result('Inner.Text_Echo', { text: '{"looks":"like json"}' })).value, '{"looks":"like json"}');
    assert.equal((await client.result('Inner.Doorbell_Ring', { doorbell_id: 'doorbell42' })).value, null);
    assert.deepEqual((await client.result('Inner.Schema_Strict', { label: 'p', point: [1, 2] })).value, { label: 'p', point: [1, 2] });
  });

  it('tool errors survive with their retry hints (developer_message stays with the inner bridge, by design)', async () => {
    const result = await client.result('Inner.Doorbell_Ring', { doorbell_id: 'doorbell1' });
    assert.equal(result.success, false);
    assert.deepEqual(result.error, {
      message: 'Doorbell ID not found',
      can_retry: true,
      retry_after_ms: 500,
      additional_prompt_content: 'ids: doorbell42,doorbell84',
    });
  });

  it('a transient failure of the inner OXP server arrives as a retryable tool error with its Retry-After', async () => {
    const result = await client.result('Inner.Flaky_Fetch', {});
    assert.equal(result.success, false);
    const error = result.error as Record<string, unknown>;
    assert.equal(error.can_retry, true);
    assert.equal(error.retry_after_ms, 7000);
    assert.match(String(error.message), /temporarily unavailable/);
  });

  it('invalid input is refused by the outer bridge already (422), with the inner schema', async () => {
    const reply = await client.call('Inner.Schema_Strict', { point: [1, 'x', 3] });
    assert.equal(reply.status, 422);
    assert.deepEqual(Object.keys(reply.body.parameter_errors as object).sort(), ['label', 'point', 'point.1']);
  });

  it('an authorization challenge of the inner OXP server reaches the OXP client as missing_requirements.authorization', async () => {
    const reply = await client.call('Inner.Gmail_Send', {});
    assert.equal(reply.status, 400);
    const [challenge] = (reply.body.missing_requirements as { authorization: { id: string; url: string }[] }).authorization;
    assert.equal(challenge!.url, AUTH_URL);
    assert.match(challenge!.id, /google/);
  });
});
