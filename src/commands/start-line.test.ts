import { it } from 'node:test';
import assert from 'node:assert/strict';
import { bridgeStartLine } from './start-line.js';

const line = (upstream: Parameters<typeof bridgeStartLine>[0]['upstreams'][number]) =>
  bridgeStartLine({ mcpUrl: 'http://127.0.0.1:8080/mcp', console: false, demo: false, upstreams: [upstream] });

it('an upstream with no catalog yet is "no catalog yet … retrying", never "0 tools"', () => {
  assert.equal(
    line({ name: 'default', url: 'http://tools:8090', ready: false, tools: 0, lastError: 'the tool server is not ready yet (HTTP 503 from GET /tools)' }),
    'mcp-oxp-bridge: serving the OXP server http://tools:8090 (no catalog yet: the tool server is not ready yet (HTTP 503 from GET /tools); retrying) to MCP clients at http://127.0.0.1:8080/mcp',
  );
});

it('a catalog its server said is not whole yet says so; an empty one answered 200 is 0 tools', () => {
  assert.match(
    line({ name: 'default', url: 'http://tools:8090', ready: true, tools: 3, pending: 1 }),
    /\(3 tools so far: 1 of its tool servers has not listed yet; retrying\)/,
  );
  assert.match(line({ name: 'default', url: 'http://tools:8090', ready: true, tools: 0 }), /\(0 tools\)/);
});
