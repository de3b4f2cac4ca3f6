/**
 * The console's Calls API over a real bridge and OXP fixture, without a browser (the browser suites skip where
 * there is none): values from every side of a call — arguments, a credential-like argument, the upstream's result
 * and its developer_message — are canaries that must never come out of /console/api/calls by default, and with
 * `console.showArguments` only the ones that are not credentials.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startBridge, type RunningBridge } from '../../src/commands/forward.js';
import { createLogger } from '../../src/platform/log.js';
import { startOxpFixture, type FixtureTool, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { MCP_HEADERS, readMessages, testConfig } from '../helpers/bridge-harness.js';

const TOKEN = 'console-calls-token-0123456789';
const tools: FixtureTool[] = [
  {
    id: 'Canary.Echo',
    name: 'Canary_Echo',
    version: '1.0.0',
    input_schema: { type: 'object' },
    handler: () => ({ value: { said: 'RESULT-CANARY', api_token: 'RESULT-TOKEN-CANARY' } }),
  },
  {
    id: 'Canary.Fail',
    name: 'Canary_Fail',
    version: '1.0.0',
    input_schema: { type: 'object' },
    handler: () => ({ error: { message: 'it failed', developer_message: 'DEVELOPER-CANARY' } }),
  },
];

async function calls(bridge: RunningBridge): Promise<string> {
  const res = await fetch(new URL('/console/api/calls?limit=200', bridge.mcpUrl), { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(res.status, 200);
  return res.text();
}

for (const showArguments of [false, true]) {
  describe(`console calls API, showArguments ${showArguments}`, () => {
    let fixture: OxpFixtureServer;
    let bridge: RunningBridge;
    before(async () => {
      fixture = await startOxpFixture({ tools });
      const config = testConfig(['--oxp-url', fixture.url], { MCP_AUTH_TOKENS: TOKEN });
      config.console.showArguments = showArguments;
      bridge = await startBridge(config, createLogger('silent'));
    });
    after(async () => {
      await bridge?.close();
      await fixture?.close();
    });

    it('never shows a credential or developer_message; values only when asked for', async () => {
      const call = async (id: number, name: string, args: Record<string, unknown>, version: string) => {
        const res = await fetch(bridge.mcpUrl!, {
          method: 'POST',
          headers: { ...MCP_HEADERS, authorization: `Bearer ${TOKEN}`, 'mcp-protocol-version': version },
          body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }),
        });
        return readMessages(res);
      };
      // The same tool twice with one shape (the recorder reuses it), then with another.
      for (let i = 0; i < 3; i++) await call(i, 'Canary_Echo', { text: 'ARG-CANARY', password: 'PASSWORD-CANARY' }, '2025-11-25');
      await call(3, 'Canary_Echo', { text: 7, apiKey: 'KEY-CANARY', nested: { secret: 'NESTED-CANARY' } }, '2025-06-18');
      await call(4, 'Canary_Fail', { text: 'ARG-CANARY' }, '2025-11-25');
      const text = await calls(bridge);
      // With values shown, the result's text block is the upstream's value as JSON text, which redaction (by key) does
      // not parse: RESULT-TOKEN-CANARY is checked in structuredContent then.
      const never = ['PASSWORD-CANARY', 'KEY-CANARY', 'NESTED-CANARY', 'DEVELOPER-CANARY', TOKEN, ...(showArguments ? [] : ['RESULT-TOKEN-CANARY'])];
      for (const canary of never) assert.ok(!text.includes(canary), `${canary} in ${text}`);
      const { recent } = JSON.parse(text) as { recent: { tool: string; outcome: string; arguments: unknown; result: unknown }[] };
      assert.deepEqual(
        recent.map((c) => `${c.tool} ${c.outcome}`),
        ['Canary_Fail tool_error', ...Array<string>(4).fill('Canary_Echo success')],
      );
      if (showArguments) {
        assert.ok(text.includes('ARG-CANARY') && text.includes('RESULT-CANARY'), 'values are shown when asked for');
        assert.equal(recent[1]!.arguments, '{"text":7,"apiKey":"[redacted]","nested":{"secret":"[redacted]"}}');
        assert.match(String(recent[1]!.result), /"structuredContent":\{"said":"RESULT-CANARY","api_token":"\[redacted\]"\}/);
      } else {
        assert.ok(!text.includes('ARG-CANARY') && !text.includes('RESULT-CANARY'), 'no value by default');
        assert.deepEqual(recent[1]!.arguments, { text: 'number', apiKey: '[redacted]', nested: 'object' });
        assert.deepEqual(recent[2]!.arguments, { text: 'string', password: '[redacted]' });
        assert.deepEqual(recent[4]!.arguments, recent[2]!.arguments);
      }
    });
  });
}
