/**
 * Operating the sidecar: Prometheus metrics after a known sequence of calls,
 * and graceful shutdown — SIGTERM during 50 in-flight slow calls lets all 50
 * complete, refuses new work, and exits 0; a second Ctrl-C during the drain
 * exits at once, saying how many calls it abandoned, each audited as cancelled.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createLogger } from '../../src/platform/log.js';
import { startBridge } from '../../src/commands/forward.js';
import { demoFixtureTools, startOxpFixture, type FixtureTool } from '../fixtures/oxp-fixture-server.js';
import { MCP_HEADERS, readMessages, testConfig } from '../helpers/bridge-harness.js';
import { cliArgs } from '../helpers/ts-entry.js';
import { cliInTerminal, NO_TERMINAL } from '../helpers/terminal.js';
import { startMcpHttpFixture } from '../fixtures/mcp-fixture-server.js';
import { eventually, OxpClient } from '../helpers/oxp-server-harness.js';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

describe('a second Ctrl-C during the drain', { skip: NO_TERMINAL }, () => {
  it('exits at once (130), saying how many calls it abandoned: a line for the person, a log line; each call audited as cancelled', async () => {
    // Before: the second SIGINT was ignored, and a 20 s call was waited out.
    const slow: FixtureTool = {
      id: 'Slow.Work',
      name: 'Slow_Work',
      version: '1.0.0',
      description: 'Takes a long while',
      input_schema: { type: 'object' },
      handler: () => ({ delayMs: 20_000, then: { value: null } }),
    };
    const fixture = await startOxpFixture({ tools: [slow] });
    const auditFile = join(mkdtempSync(join(tmpdir(), 'second-sigint-')), 'audit.jsonl');
    const cli = cliInTerminal(['--oxp-url', fixture.url, '--port', '0', '--log-level', 'info', '--audit-file', auditFile]);
    try {
      const url = /"url":"(http:[^"]+)"/.exec(await cli.waitFor(/"msg":"MCP Streamable HTTP endpoint listening"/))![1]!;
      const calls = [1, 2].map((id) => call(url, 'Slow_Work', {}, id).catch(() => 'connection closed'));
      while (fixture.callCount('Slow.Work') < 2) await new Promise((r) => setTimeout(r, 10));
      cli.type('\x03'); // Ctrl-C
      await cli.waitFor(/"msg":"shutting down: draining in-flight requests"/);
      // Before: the first Ctrl-C said nothing to the person (only the JSON line), the second did.
      const first = await cli.waitFor(/^mcp-oxp-bridge: Ctrl-C: stopping/);
      assert.equal(first, 'mcp-oxp-bridge: Ctrl-C: stopping, waiting for 2 calls in flight (up to 25 s); Ctrl-C again to exit now');
      const second = Date.now();
      cli.type('\x03');
      const said = await cli.waitFor(/^mcp-oxp-bridge: second Ctrl-C/);
      assert.equal(await cli.exited, 130);
      assert.ok(Date.now() - second < 10_000, `gone within seconds, not after the 20 s call (${Date.now() - second} ms)`);
      assert.equal(said, 'mcp-oxp-bridge: second Ctrl-C: exiting now, without waiting for 2 calls in flight (each logged and audited as cancelled)');
      const logged = cli.lines().find((l) => l.includes('second SIGINT during the drain'));
      assert.ok(logged, cli.lines().join('\n'));
      assert.equal((JSON.parse(logged) as { abandoned_calls?: number }).abandoned_calls, 2);
      const records = readFileSync(auditFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { type?: string; tool?: { name?: string }; outcome?: string })
        .filter((r) => r.tool?.name === 'Slow_Work');
      assert.deepEqual(
        records.map((r) => r.outcome),
        ['cancelled', 'cancelled'],
      );
      await Promise.all(calls);
    } finally {
      await cli.stop();
      await fixture.close();
    }
  });
  it('the oxp-server too: its calls on an MCP server abandoned at once, each audited as cancelled', async () => {
    // Over HTTP: a stdio MCP server would be in the terminal's process group, and the first Ctrl-C would stop it too.
    const fixture = await startMcpHttpFixture();
    const auditFile = join(mkdtempSync(join(tmpdir(), 'second-sigint-oxp-')), 'audit.jsonl');
    const cli = cliInTerminal(['oxp-server', '--port', '0', '--mcp-url', `Local=${fixture.url}`, '--audit-file', auditFile]);
    try {
      const client = new OxpClient(/"url":"(http:[^"]+)"/.exec(await cli.waitFor(/"msg":"OXP server listening"/))![1]!);
      await eventually(async () => (await client.listOrNone()).some((t) => String(t.id).startsWith('Local.slow@')), 30_000, 'Local.slow listed');
      const calls = [1, 2].map(() => client.call('Local.slow', { ms: 20_000 }).catch(() => 'connection closed'));
      await new Promise((r) => setTimeout(r, 500)); // both calls under way on the MCP server
      cli.type('\x03');
      await cli.waitFor(/"msg":"shutting down: draining in-flight requests"/);
      assert.match(await cli.waitFor(/^mcp-oxp-bridge: Ctrl-C: stopping/), /waiting for 2 calls in flight \(up to 25 s\); Ctrl-C again to exit now$/);
      const second = Date.now();
      cli.type('\x03');
      const said = await cli.waitFor(/^mcp-oxp-bridge: second Ctrl-C/);
      assert.equal(await cli.exited, 130);
      assert.ok(Date.now() - second < 10_000, `gone within seconds (${Date.now() - second} ms)`);
      assert.match(said, /without waiting for 2 calls in flight/);
      const outcomes = readFileSync(auditFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { outcome?: string }).outcome);
      assert.deepEqual(outcomes, ['cancelled', 'cancelled']);
      await Promise.all(calls);
    } finally {
      await cli.stop();
      await fixture.close();
    }
  });
});
