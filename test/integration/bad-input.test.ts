/**
 * Bad input over real HTTP: each gets the right error, and the bridge keeps
 * serving afterwards (every test ends with a call that must still work).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { createLogger } from '../../src/platform/log.js';
import { startBridge } from '../../src/commands/forward.js';
import { MCP_HEADERS, MODERN_META, modernHeaders, readMessages, startHarness, testConfig, type Harness } from '../helpers/bridge-harness.js';
import { assertValidServerMessage } from '../helpers/mcp-schema.js';

describe('bad input over HTTP', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  const post = (body: string, headers: Record<string, string> = { ...MCP_HEADERS, 'mcp-protocol-version': '2025-06-18' }) =>
    fetch(h.mcpUrl, { method: 'POST', headers, body });

  const stillServes = async () => {
    const res = await post(JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'tools/call', params: { name: 'Calculator_Add', arguments: { a: 2, b: 3 } } }));
    assert.equal(res.status, 200);
    const [msg] = await readMessages(res);
    assertValidServerMessage('2025-06-18', msg, 'tools/call');
    assert.deepEqual((msg!.result as { structuredContent: unknown }).structuredContent, { sum: 5 });
  };

  it('malformed JSON → parse error', async () => {
    const res = await post('{"jsonrpc":"2.0","id":1,"method":');
    assert.equal(res.status, 400);
    const [msg] = await readMessages(res);
    assert.equal((msg!.error as { code: number }).code, -32700);
    await stillServes();
  });

  it('not JSON-RPC → invalid request', async () => {
    const res = await post(JSON.stringify({ hello: 'world' }));
    assert.equal(res.status, 400);
    const [msg] = await readMessages(res);
    assert.ok([-32600, -32700].includes((msg!.error as { code: number }).code));
    await stillServes();
  });

  it('unknown method → -32601 (legacy and modern)', async () => {
    const legacy = await readMessages(await post(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'resources/list' })));
    assert.equal((legacy[0]!.error as { code: number }).code, -32601);
    const res = await fetch(h.mcpUrl, {
      method: 'POST',
      headers: modernHeaders('prompts/list'),
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'prompts/list', params: { _meta: MODERN_META } }),
    });
    const [modern] = await readMessages(res);
    assert.equal((modern!.error as { code: number }).code, -32601);
    await stillServes();
  });

  it('arguments of the wrong JSON type → -32602; wrong types for the tool → isError naming the parameter', async () => {
    const [bad] = await readMessages(
      await post(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'Calculator_Add', arguments: 'a=1' } })),
    );
    assert.equal((bad!.error as { code: number }).code, -32602);
    const callsBefore = h.fixture.callCount();
    const [typed] = await readMessages(
      await post(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'Calculator_Add', arguments: { a: 1, b: 'infinity' } } })),
    );
    assertValidServerMessage('2025-06-18', typed, 'tools/call');
    const result = typed!.result as { isError: boolean; content: { text: string }[] };
    assert.equal(result.isError, true);
    assert.match(result.content[0]!.text, /- b: must be number/);
    assert.equal(h.fixture.callCount(), callsBefore, 'answered by the bridge, without a round trip');
    await stillServes();
  });

  it('unknown tool → -32602', async () => {
    const [msg] = await readMessages(
      await post(JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'No_Such_Tool', arguments: {} } })),
    );
    assert.deepEqual(msg!.error, { code: -32602, message: 'Unknown tool: No_Such_Tool' });
    await stillServes();
  });

  it('oversized body → 413', async () => {
    const huge = JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'Text_Echo', arguments: { text: 'x'.repeat(5 * 1024 * 1024) } },
    });
    const res = await post(huge);
    assert.equal(res.status, 413);
    await res.body?.cancel();
    await stillServes();
  });

  it('JSON nested beyond http.maxJsonDepth → 400 before any parser runs', async () => {
    const deep = `{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"Text_Echo","arguments":{"text":"x","deep":${'['.repeat(200)}${']'.repeat(200)}}}}`;
    const res = await post(deep);
    assert.equal(res.status, 400);
    const [msg] = await readMessages(res);
    assert.match((msg!.error as { message: string }).message, /deeper than 64 levels/);
    await stillServes();
  });

  it('unknown protocol versions: negotiated down on initialize, 400 in headers and envelopes', async () => {
    const [init] = await readMessages(
      await post(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 8,
          method: 'initialize',
          params: { protocolVersion: '1999-01-01', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        }),
        MCP_HEADERS,
      ),
    );
    assert.equal((init!.result as { protocolVersion: string }).protocolVersion, '2025-11-25');
    const header = await post(JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }), { ...MCP_HEADERS, 'mcp-protocol-version': '1999-01-01' });
    assert.equal(header.status, 400);
    await header.body?.cancel();
    const modern = await fetch(h.mcpUrl, {
      method: 'POST',
      headers: { ...modernHeaders('tools/list'), 'mcp-protocol-version': '2027-01-01' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 10,
        method: 'tools/list',
        params: { _meta: { ...MODERN_META, 'io.modelcontextprotocol/protocolVersion': '2027-01-01' } },
      }),
    });
    assert.equal(modern.status, 400);
    const [err] = await readMessages(modern);
    assert.equal((err!.error as { code: number }).code, -32022);
    await stillServes();
  });

  it('2026-07-28 header ladder: a header that disagrees with the envelope → 400/-32020', async () => {
    const res = await fetch(h.mcpUrl, {
      method: 'POST',
      headers: { ...modernHeaders('tools/call', 'Calculator_Add'), 'mcp-name': 'Text_Echo' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 13, method: 'tools/call', params: { name: 'Calculator_Add', arguments: { a: 1, b: 2 }, _meta: MODERN_META } }),
    });
    assert.equal(res.status, 400);
    const [msg] = await readMessages(res);
    assert.equal((msg!.error as { code: number }).code, -32020);
    assertValidServerMessage('2026-07-28', msg);
    await stillServes();
  });

  it('invalid cursor → -32602', async () => {
    const [msg] = await readMessages(await post(JSON.stringify({ jsonrpc: '2.0', id: 11, method: 'tools/list', params: { cursor: 'bogus!' } })));
    assert.equal((msg!.error as { code: number }).code, -32602);
    await stillServes();
  });

  it('DNS rebinding: foreign Host or Origin → 403', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 12, method: 'tools/list' });
    const origin = await post(body, { ...MCP_HEADERS, 'mcp-protocol-version': '2025-06-18', origin: 'http://evil.example' });
    assert.equal(origin.status, 403);
    await origin.body?.cancel();
    // fetch() does not let a caller forge Host; use a raw request.
    const url = new URL(h.mcpUrl);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: '/mcp', method: 'POST', headers: { ...MCP_HEADERS, host: 'evil.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end(body);
    });
    assert.equal(status, 403);
    await stillServes();
  });
});

describe('a Host that makes no URL, where no Host list applies (bound beyond loopback)', () => {
  it('reaches the SDK and is answered as any request, not with a 500', async () => {
    // Bound to 0.0.0.0 without http.allowedHosts, any Host passes the gate. The SDK's node adapter (toNodeHandler)
    // builds the web Request's URL from it and answers 500; the face builds it on a fixed origin (pipeline.ts).
    const h = await startHarness({ args: ['--host', '0.0.0.0', '--allow-unauthenticated', 'true'] });
    try {
      const port = new URL(h.mcpUrl).port;
      const initialize = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'odd-host', version: '1' } },
      });
      const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { ...MCP_HEADERS, host: 'not a host' } }, (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (d: string) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        });
        req.on('error', reject);
        req.end(initialize);
      });
      assert.equal(answer.status, 200, answer.text);
      assert.match(answer.text, /"protocolVersion":"2025-06-18"/);
    } finally {
      await h.close();
    }
  });
});

describe('probes', () => {
  it('/healthz is 200 and /readyz 200 once the catalog is loaded', async () => {
    const h = await startHarness();
    try {
      assert.equal((await fetch(new URL('/healthz', h.mcpUrl))).status, 200);
      const ready = await fetch(new URL('/readyz', h.mcpUrl));
      assert.equal(ready.status, 200);
      assert.ok(((await ready.json()) as { tools: number }).tools > 0);
    } finally {
      await h.close();
    }
  });

  it('an unreachable upstream: the bridge starts, /healthz 200, /readyz 503, calls fail cleanly', async () => {
    const bridge = await startBridge(testConfig(['--oxp-url', 'http://127.0.0.1:9', '--connect-timeout-ms', '500']), createLogger('silent'));
    try {
      assert.equal((await fetch(new URL('/healthz', bridge.mcpUrl))).status, 200);
      const res = await fetch(new URL('/readyz', bridge.mcpUrl));
      assert.equal(res.status, 503);
      assert.equal(((await res.json()) as { ready: boolean }).ready, false);
      const list = await fetch(bridge.mcpUrl!, {
        method: 'POST',
        headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      const [msg] = await readMessages(list);
      assert.deepEqual(msg!.error, {
        code: -32603,
        message: 'The tool catalog is not loaded yet: the tool server is not reachable or not ready. Try again shortly.',
      });
      assertValidServerMessage('2025-06-18', msg, 'tools/list');
    } finally {
      await bridge.close();
    }
  });
});
