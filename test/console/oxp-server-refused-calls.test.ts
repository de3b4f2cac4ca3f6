/**
 * The oxp-server's console records every call, as the bridge's does: run or refused — denied by a rule, over a
 * rule's limit, invalid input, an unknown tool id — each one row of /console/api/calls with its outcome and caller
 * (no browser needed: the API is read directly). A refused call has no upstream; one whose tool resolved names it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startMcpHttpFixture, type McpHttpFixture } from '../fixtures/mcp-fixture-server.js';
import { eventually, startTestOxpServer, writeConfigFile, type TestOxpServer } from '../helpers/oxp-server-harness.js';
import { aliceAndBob, salesPolicy } from '../helpers/principals.js';

const ALICE = 'alice-console-key-5e1b9c7d3a2f';
const BOB = 'bob-console-key-8c3d1f6e2b9a';

interface ShownCall {
  tool: string;
  upstream: string | null;
  outcome: string;
  principal: string | null;
}

describe('oxp-server console: every call is recorded, refused ones too', () => {
  let fx: McpHttpFixture;
  let server: TestOxpServer;
  let echo: string;

  before(async () => {
    fx = await startMcpHttpFixture({ version: '1.0.0' });
    const config = writeConfigFile({
      oxpServer: {
        apiKeys: aliceAndBob('ALICE_KEY', 'BOB_KEY'),
      },
      access: salesPolicy(1),
    });
    server = await startTestOxpServer(['--config', config, '--mcp-url', `Fx=${fx.url}`], { ALICE_KEY: ALICE, BOB_KEY: BOB });
    const listed = (await (await fetch(`${server.url}/tools`, { headers: { 'oxp-api-key': ALICE } })).json()) as { items: { id: string }[] };
    echo = listed.items.map((t) => t.id).find((id) => id.startsWith('Fx.echo_text'))!;
  });
  after(async () => {
    await server?.close();
    await fx?.close();
  });

  const call = async (key: string, toolId: string, input: unknown) => {
    const res = await fetch(`${server.url}/tools/call`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'oxp-api-key': key },
      body: JSON.stringify({ $schema: 'urn:oxp:1.0', request: { tool_id: toolId, input } }),
    });
    return res.status;
  };

  it('lists run, denied, limited, invalid and unknown calls, newest first', async () => {
    assert.equal(await call(ALICE, echo, { text: 'hi' }), 200);
    assert.equal(await call(BOB, 'Fx.add', { a: 1, b: 2 }), 400);
    assert.equal(await call(BOB, echo, { text: 'one' }), 200);
    assert.equal(await call(BOB, echo, { text: 'two' }), 200);
    assert.equal(await call(ALICE, echo, { text: 5 }), 422);
    assert.equal(await call(ALICE, 'Fx.no_such_tool', {}), 400);
    const expected = [
      { outcome: 'success', principal: 'alice', upstream: 'Fx' },
      { outcome: 'denied', principal: 'bob', upstream: 'Fx' },
      { outcome: 'success', principal: 'bob', upstream: 'Fx' },
      { outcome: 'rate_limited', principal: 'bob', upstream: 'Fx' },
      { outcome: 'invalid_input', principal: 'alice', upstream: 'Fx' },
      { outcome: 'refused', principal: 'alice', upstream: null },
    ];
    let recent: ShownCall[] = [];
    await eventually(async () => {
      const res = await fetch(`${server.url}/console/api/calls`, { headers: { 'oxp-api-key': ALICE } });
      recent = ((await res.json()) as { recent: ShownCall[] }).recent;
      return recent.length >= expected.length;
    });
    const shown = recent.map(({ outcome, principal, upstream }) => ({ outcome, principal, upstream }));
    assert.deepEqual(shown, expected.reverse(), JSON.stringify(recent));
    assert.equal(recent[0]!.tool, 'Fx.no_such_tool', 'an unknown id is shown as asked');
  });
});
