/**
 * Operating the sidecar: Prometheus metrics after a known sequence of calls,
 * and graceful shutdown — SIGTERM during 50 in-flight slow calls lets all 50
 * complete, refuses new work, and exits 0.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createLogger } from '../../src/platform/log.js';
import { startBridge } from '../../src/commands/forward.js';
import { demoFixtureTools, startOxpFixture, type FixtureTool } from '../fixtures/oxp-fixture-server.js';
import { MCP_HEADERS, readMessages, testConfig } from '../helpers/bridge-harness.js';
import { cliArgs } from '../helpers/ts-entry.js';

const VERSION = '2025-06-18';
const call = (url: string, name: string, args: Record<string, unknown>, id = 1) =>
  fetch(url, {
    method: 'POST',
    headers: { ...MCP_HEADERS, 'mcp-protocol-version': VERSION },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }),
  }).then(readMessages);

/** The value of one sample line, e.g. sample(text, 'x_total', {a: '1'}). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

describe('metrics', () => {
  it('a scrape after a known sequence of calls shows the expected counters', async () => {
    const fixture = await startOxpFixture({ tools: demoFixtureTools() });
    const config = testConfig(['--oxp-url', fixture.url]);
    config.upstream.retry.baseDelayMs = 1;
    const bridge = await startBridge(config, createLogger('silent'));
    try {
      await fetch(bridge.mcpUrl!, {
        method: 'POST',
        headers: { ...MCP_HEADERS, 'mcp-protocol-version': VERSION },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      for (let i = 0; i < 3; i++) await call(bridge.mcpUrl!, 'Calculator_Add', { a: i, b: 1 });
      await call(bridge.mcpUrl!, 'Doorbell_Ring', { doorbell_id: 'doorbell1' });
      await call(bridge.mcpUrl!, 'Calculator_Add', { a: 'x', b: 1 });
      await call(bridge.mcpUrl!, 'Nope', {});
      await fetch(bridge.mcpUrl!, { method: 'POST', headers: { ...MCP_HEADERS, origin: 'http://evil.example' }, body: '{}' });
      const res = await fetch(new URL('/metrics', bridge.mcpUrl));
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /text\/plain/);
      const text = await res.text();
      const req = (labels: Record<string, string>) =>
        sample(text, 'mcp_oxp_bridge_requests_total', { upstream: 'default', protocol_version: VERSION, ...labels });
      assert.equal(req({ method: 'tools/list', upstream: '', outcome: 'success' }), 1, 'tools/list spans every upstream');
      assert.equal(req({ method: 'tools/call', tool: 'Calculator_Add', outcome: 'success' }), 3);
      assert.equal(req({ method: 'tools/call', tool: 'Doorbell_Ring', outcome: 'tool_error' }), 1);
      assert.equal(req({ method: 'tools/call', tool: 'Calculator_Add', outcome: 'invalid_input' }), 1);
      assert.equal(req({ method: 'tools/call', tool: '(unknown)', upstream: '', outcome: 'unknown_tool' }), 1);
      assert.equal(sample(text, 'mcp_oxp_bridge_upstream_request_duration_seconds_count', { upstream: 'default', outcome: 'success' }), 3);
      assert.equal(sample(text, 'mcp_oxp_bridge_catalog_tools', { upstream: 'default' }), new Set(demoFixtureTools().map((t) => t.id)).size);
      assert.equal(sample(text, 'mcp_oxp_bridge_circuit_state', { upstream: 'default' }), 0);
      assert.equal(sample(text, 'mcp_oxp_bridge_http_rejections_total', { reason: 'host_or_origin' }), 1);
      assert.ok(sample(text, 'process_resident_memory_bytes')! > 0);
    } finally {
      await bridge.close();
      await fixture.close();
    }
  });
});

describe('per-client limits', () => {
  it('rate limit and in-flight cap answer 429 with Retry-After, per client', async () => {
    const slow: FixtureTool = {
      id: 'Slow.Wait',
      name: 'Slow_Wait',
      version: '1.0.0',
      description: 'Waits',
      input_schema: { type: 'object' },
      output_schema: null,
      handler: () => ({ delayMs: 300, then: { value: null } }),
    };
    const fixture = await startOxpFixture({ tools: [...demoFixtureTools(), slow] });
    const config = testConfig(['--oxp-url', fixture.url]);
    config.http.limits = { requestsPerMinute: 60, burst: 3, maxInFlight: 0 };
    const rated = await startBridge(config, createLogger('silent'));
    const capped = await startBridge(
      { ...config, http: { ...config.http, limits: { requestsPerMinute: 0, burst: 0, maxInFlight: 2 } } },
      createLogger('silent'),
    );
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await fetch(rated.mcpUrl!, {
          method: 'POST',
          headers: { ...MCP_HEADERS, 'mcp-protocol-version': VERSION },
          body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/list' }),
        });
        statuses.push(res.status);
        if (res.status === 429) {
          assert.equal(res.headers.get('retry-after'), '1');
          assert.match(((await res.json()) as { error: { message: string } }).error.message, /Rate limit exceeded: 60 requests per minute/);
        } else await res.body?.cancel();
      }
      assert.deepEqual(statuses, [200, 200, 200, 429]);

      const concurrent = await Promise.all(
        [1, 2, 3].map((id) =>
          fetch(capped.mcpUrl!, {
            method: 'POST',
            headers: { ...MCP_HEADERS, 'mcp-protocol-version': VERSION },
            body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'Slow_Wait', arguments: {} } }),
          }).then(async (r) => {
            await r.text();
            return r.status;
          }),
        ),
      );
      assert.deepEqual([...concurrent].sort(), [200, 200, 429]);
    } finally {
      await rated.close();
      await capped.close();
      await fixture.close();
    }
  });
});

describe('graceful shutdown', () => {
  it('SIGTERM during 50 in-flight slow calls: all 50 complete, new work is refused, exit 0', async () => {
    const slow: FixtureTool = {
      id: 'Slow.Work',
      name: 'Slow_Work',
      version: '1.0.0',
      description: 'Takes a while',
      input_schema: { type: 'object', properties: { n: { type: 'integer' } } },
      output_schema: { type: 'object' },
      handler: (req) => ({ delayMs: 1500, then: { value: { n: req.input?.['n'] ?? null } } }),
    };
    const fixture = await startOxpFixture({ tools: [slow] });
    const child = spawn(process.execPath, cliArgs(['--oxp-url', fixture.url, '--port', '0', '--log-level', 'info']), { stdio: ['ignore', 'ignore', 'pipe'] });
    try {
      let stderr = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr.setEncoding('utf8');
        child.stderr.on('data', (chunk: string) => {
          stderr += chunk;
          const m = /"url":"(http:[^"]+)"/.exec(stderr);
          if (m) resolve(m[1]!);
        });
        child.once('exit', () => reject(new Error(`bridge exited early: ${stderr}`)));
      });
      const calls = Array.from({ length: 50 }, (_, n) => call(url, 'Slow_Work', { n }, n + 1));
      while (fixture.callCount('Slow.Work') < 50) await new Promise((r) => setTimeout(r, 10));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 200));
      // Draining: new work is refused (503 on a live connection, or the listener is closed).
      const late = await fetch(url, { method: 'POST', headers: { ...MCP_HEADERS, 'mcp-protocol-version': VERSION }, body: '{}' }).then(
        (r) => r.status,
        () => 'refused',
      );
      assert.ok(late === 503 || late === 'refused', `late request got ${late}`);
      const replies = await Promise.all(calls);
      replies.forEach((messages, n) => {
        assert.equal(messages.length, 1);
        assert.deepEqual((messages[0]!.result as { structuredContent: unknown }).structuredContent, { n });
      });
      assert.equal(await exited, 0);
      assert.match(stderr, /drained: no request in flight/);
    } finally {
      child.kill('SIGKILL');
      await fixture.close();
    }
  });
});
