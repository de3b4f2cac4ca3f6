/**
 * A forward call's other lines — a retry, the upstream's own words about a tool error at debug — carry the call's
 * ids as its one `tool call` line does: they come from the call's own logger (ToolCall.logger), made when the first of
 * them is written. The `tool call` line itself is written by the logger's line writer (platform/log-line.ts).
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../src/platform/log.js';
import { startBridge, type RunningBridge } from '../../src/commands/forward.js';
import { startOxpFixture, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { MCP_HEADERS, readMessages, testConfig } from '../helpers/bridge-harness.js';

const VERSION = '2025-11-25';
type Line = Record<string, unknown> & { msg: string };

let fixture: OxpFixtureServer;
let bridge: RunningBridge;
const lines: Line[] = [];

before(async () => {
  let attempts = 0;
  fixture = await startOxpFixture({
    tools: [
      {
        id: 'Flaky.Tool',
        name: 'Flaky_Tool',
        version: '1.0.0',
        description: 'fails once with 503, then with a tool error',
        input_schema: { type: 'object' },
        handler: () =>
          ++attempts === 1
            ? { http: { status: 503, body: { detail: 'busy' } } }
            : { error: { message: 'tool failed', developer_message: 'the upstream detail' } },
      },
    ],
  });
  const config = testConfig(['--oxp-url', fixture.url]);
  config.upstream.retry = { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 1000, retryToolErrors: false };
  bridge = await startBridge(config, createLogger('debug', { write: (line: string) => lines.push(JSON.parse(line) as Line) }));
});

after(async () => {
  await bridge.close();
  await fixture.close();
});

it('a retry and the tool error’s detail carry the ids of the call’s own line', async () => {
  const res = await fetch(bridge.mcpUrl!, {
    method: 'POST',
    headers: { ...MCP_HEADERS, 'mcp-protocol-version': VERSION },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'Flaky_Tool', arguments: {} } }),
  });
  assert.ok((await readMessages(res)).some((m) => 'result' in m));
  const call = lines.find((l) => l.msg === 'tool call');
  assert.ok(call, 'the call line');
  assert.equal(call.attempts, 2);
  assert.equal(call.service, 'mcp-oxp-bridge');
  for (const msg of ['retrying tool call', 'tool error detail']) {
    const line = lines.find((l) => l.msg === msg);
    assert.ok(line, msg);
    for (const key of ['call_id', 'tool', 'upstream', 'oxp_tool', 'protocol_version', 'service']) assert.equal(line[key], call[key], `${msg}: ${key}`);
    assert.match(String(line.call_id), /^[0-9a-f-]{36}$/);
  }
});
