/**
 * Hostile clients and upstreams against the face, its lifecycle and its
 * operations endpoints (issue 10, findings 3, 6–11): batches over the
 * per-client limits, withheld bodies, slow headers, connection floods,
 * SIGTERM while a client or an upstream stalls, upstream error text on
 * /readyz, Host rebinding on ops endpoints, the /metrics token, the OAuth
 * resource, an overlong stdio line, and aborts on the SDK path. Every HTTP
 * case ends by asserting the process still answers its health check.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConfigError } from '../../src/config/load.js';
import { createLogger } from '../../src/platform/log.js';
import { startBridge, type RunningBridge } from '../../src/commands/forward.js';
import { MCP_HEADERS, MODERN_META, modernHeaders, readMessages, testConfig, until } from '../helpers/bridge-harness.js';
import { cleanChildEnv, REPO_ROOT } from '../helpers/it-bridge.js';
import { startBridgeProcess, type BridgeProcess } from './bridge-process.js';
import { assertHealthy, healthzOf } from './health.js';
import { startHostileOxp, type HostileOxpServer } from './hostile-oxp-server.js';
import { hostileMcpCommand } from './hostile-mcp-server.js';
import { heldCallArrivedAt, heldCallClosedAt, READYZ_CANARY } from './oxp-scenarios/face.js';
import { rawConnect, settlesWithin, withheldBody } from './raw-client.js';
import { cliArgs } from '../helpers/ts-entry.js';

const dir = mkdtempSync(join(tmpdir(), 'face-hostile-'));
let files = 0;
/** A config file (JSON is YAML) with these keys. */
function configFile(config: Record<string, unknown>): string {
  const path = join(dir, `config-${++files}.json`);
  writeFileSync(path, JSON.stringify(config));
  return path;
}

let oxp: HostileOxpServer;
before(async () => {
  oxp = await startHostileOxp();
});
after(async () => {
  await oxp.close();
});

async function bridgeWith(
  scenario: string,
  http: Record<string, unknown> = {},
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<RunningBridge & { mcpUrl: string }> {
  const config = testConfig(['--oxp-url', oxp.url(scenario), '--config', configFile({ http }), ...args], env);
  return (await startBridge(config, createLogger('silent'))) as RunningBridge & { mcpUrl: string };
}

const call = (id: number | string, name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
});

async function waitFor(predicate: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('JSON-RPC batches count against the per-client limits', () => {
  it('a batch of 50 tools/call under 6/min, burst 2, maxInFlight 1 runs no upstream call', async () => {
    const scenario = 'slow';
    const before = oxp.hits(scenario).filter((h) => h.method === 'POST').length;
    const bridge = await bridgeWith(scenario, { limits: { requestsPerMinute: 6, burst: 2, maxInFlight: 1 } });
    try {
      const batch = Array.from({ length: 50 }, (_, i) => call(i + 1, 'Slow', { ms: 0 }));
      const res = await fetch(bridge.mcpUrl, { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify(batch) });
      const text = await res.text();
      assert.equal(res.status, 429, text);
      assert.ok(res.headers.get('retry-after'));
      assert.match(text, /too many concurrent|rate limit/i);
      // Within the limits, a single call still goes through.
      const one = await fetch(bridge.mcpUrl, { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify(call(99, 'Slow', { ms: 0 })) });
      assert.equal(one.status, 200);
      assert.match(JSON.stringify(await readMessages(one)), /slept 0/);
      const upstreamCalls = oxp.hits(scenario).filter((h) => h.method === 'POST').length - before;
      assert.equal(upstreamCalls, 1, 'only the single admitted call reached the upstream');
      await assertHealthy(healthzOf(bridge.mcpUrl));
    } finally {
      await bridge.close();
    }
  });

  it('a batch over http.maxBatchSize is refused whole, limits or not', async () => {
    const bridge = await bridgeWith('slow', { maxBatchSize: 10 });
    try {
      const batch = Array.from({ length: 11 }, (_, i) => call(i + 1, 'Slow', { ms: 0 }));
      const res = await fetch(bridge.mcpUrl, { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify(batch) });
      assert.equal(res.status, 400);
      assert.match(await res.text(), /at most 10 per batch/);
      await assertHealthy(healthzOf(bridge.mcpUrl));
    } finally {
      await bridge.close();
    }
  });
});

describe('slow and silent clients are cut off; long answers are not', () => {
  let bridge: RunningBridge & { mcpUrl: string };
  before(async () => {
    bridge = await bridgeWith('slow', { headersTimeoutMs: 1000, requestTimeoutMs: 1500 });
  });
  after(async () => {
    await bridge.close();
  });

  it('a withheld request body is answered 408 and closed after the body timeout', async () => {
    const conn = await withheldBody(bridge.mcpUrl);
    const started = Date.now();
    assert.ok(await settlesWithin(conn.closed, 6_000), 'the connection with a withheld body is still open after 6 s');
    assert.ok(Date.now() - started >= 1000, 'not cut before the timeout');
    assert.match(conn.received, /^HTTP\/1\.1 408/);
    await assertHealthy(healthzOf(bridge.mcpUrl));
  });

  it('headers trickled byte by byte, and a connection that never speaks, are closed after the headers timeout', async () => {
    const { host } = new URL(bridge.mcpUrl);
    const trickle = await rawConnect(bridge.mcpUrl, 'POST /mcp HTTP/1.1\r\n');
    const header = `Host: ${host}\r\nx-slow: ${'a'.repeat(200)}`;
    let i = 0;
    const timer = setInterval(() => trickle.write(header[i++ % header.length]!), 100);
    const silent = await rawConnect(bridge.mcpUrl);
    try {
      assert.ok(await settlesWithin(trickle.closed, 6_000), 'the trickling client is still connected after 6 s');
      assert.ok(await settlesWithin(silent.closed, 6_000), 'the silent connection is still open after 6 s');
    } finally {
      clearInterval(timer);
    }
    await assertHealthy(healthzOf(bridge.mcpUrl));
  });

  it('a flood of 300 connections holds at most http.maxConnections open', async () => {
    // Its own bridge, with a headers timeout far off: connections over the cap are closed on arrival, and a loaded
    // machine may deliver those closes late, so the count is sampled for up to 8 s; only the cap can bring it to
    // 40 before the 10 s headers timeout would close them all (that timeout on a silent connection: the case above).
    const flooded = await bridgeWith('slow', { headersTimeoutMs: 10_000, maxConnections: 40 });
    const started = Date.now();
    const flood = await Promise.all(Array.from({ length: 300 }, () => rawConnect(flooded.mcpUrl).catch(() => undefined)));
    try {
      let open = Infinity;
      while (open > 40 && Date.now() - started < 8_000) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        let now = 0;
        for (const c of flood) if (c && !c.socket.destroyed && !(await settlesWithin(c.closed, 0))) now++;
        open = Math.min(open, now);
      }
      assert.ok(open <= 40, `${open} connections held open, cap 40`);
      // The flood gone, the server serves again.
      for (const c of flood) c?.destroy();
      await until(async () => (await fetch(healthzOf(flooded.mcpUrl)).catch(() => undefined))?.status === 200, 10_000);
      await assertHealthy(healthzOf(flooded.mcpUrl));
    } finally {
      for (const c of flood) c?.destroy();
      await flooded.close();
    }
  });

  it('tool calls answering after 3 s (past the 1.5 s body timeout) complete: 2025 SSE, 2026 JSON, and with a progress token', async () => {
    // Independent calls on one bridge, run together: each must still outlive the body timeout on its own.
    const variants = [
      { label: '2025 SSE', headers: MCP_HEADERS, meta: undefined },
      { label: '2026 JSON', headers: modernHeaders('tools/call', 'Slow'), meta: MODERN_META },
      { label: '2025 SSE with a progress token', headers: MCP_HEADERS, meta: { progressToken: 'p' } },
    ];
    await Promise.all(
      variants.map(async ({ label, headers, meta }, i) => {
        const res = await fetch(bridge.mcpUrl, { method: 'POST', headers, body: JSON.stringify(call(i + 1, 'Slow', { ms: 3000 }, meta)) });
        assert.equal(res.status, 200, label);
        assert.match(JSON.stringify(await readMessages(res)), /slept 3000/, label);
      }),
    );
    await assertHealthy(healthzOf(bridge.mcpUrl));
  });
});

// Each case has its own bridge and tag, and measures only its own abort: they run concurrently.
describe('an aborted call releases its upstream socket promptly', { concurrency: true }, () => {
  for (const [label, headers, meta] of [
    ['2025, no progress token', MCP_HEADERS, {}],
    ['2025, progress token', MCP_HEADERS, { progressToken: 'p1' }],
    ['2026, progress token', modernHeaders('tools/call', 'Hold'), { ...MODERN_META, progressToken: 'p2' }],
  ] as const) {
    it(label, async () => {
      const bridge = await bridgeWith('hold');
      try {
        const tag = `abort-${label}`;
        const abort = new AbortController();
        const pending = fetch(bridge.mcpUrl, { method: 'POST', headers, signal: abort.signal, body: JSON.stringify(call(1, 'Hold', { tag }, meta)) })
          .then((r) => r.text())
          .catch(() => 'aborted');
        await waitFor(() => heldCallArrivedAt.has(tag));
        const abortedAt = Date.now();
        abort.abort();
        await pending;
        await waitFor(() => heldCallClosedAt.has(tag), 5_000).catch(() => undefined);
        const closedAt = heldCallClosedAt.get(tag);
        assert.ok(
          closedAt !== undefined && closedAt - abortedAt < 2_000,
          `upstream socket closed ${closedAt === undefined ? 'never (5 s)' : `${closedAt - abortedAt} ms`} after the abort`,
        );
        await assertHealthy(healthzOf(bridge.mcpUrl));
      } finally {
        await bridge.close();
      }
    });
  }
});

describe('a 2025-era notifications/cancelled (its own POST, as SDK clients send it) aborts the upstream call promptly', () => {
  it("its own session's cancellation does; another session's does not", async () => {
    const bridge = await bridgeWith('hold');
    try {
      const session = async () => {
        const res = await fetch(bridge.mcpUrl, {
          method: 'POST',
          headers: MCP_HEADERS,
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 0,
            method: 'initialize',
            params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'hostile', version: '1' } },
          }),
        });
        await res.text();
        return res.headers.get('mcp-session-id')!;
      };
      const [mine, theirs] = [await session(), await session()];
      const headers = (id: string) => ({ ...MCP_HEADERS, 'mcp-protocol-version': '2025-06-18', 'mcp-session-id': id });
      const tag = 'cancel';
      const pending = fetch(bridge.mcpUrl, { method: 'POST', headers: headers(mine), body: JSON.stringify(call(7, 'Hold', { tag })) }).then((r) => r.text());
      await waitFor(() => heldCallArrivedAt.has(tag));
      const cancel = (id: string) => ({
        method: 'POST',
        headers: headers(id),
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: 'user' } }),
      });
      assert.equal((await fetch(bridge.mcpUrl, cancel(theirs))).status, 202);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.ok(!heldCallClosedAt.has(tag), 'another session cancelled this call');
      const cancelledAt = Date.now();
      assert.equal((await fetch(bridge.mcpUrl, cancel(mine))).status, 202);
      await waitFor(() => heldCallClosedAt.has(tag), 5_000).catch(() => undefined);
      const closedAt = heldCallClosedAt.get(tag);
      assert.ok(
        closedAt !== undefined && closedAt - cancelledAt < 2_000,
        `upstream socket closed ${closedAt === undefined ? 'never (5 s)' : `${closedAt - cancelledAt} ms`} after the cancellation`,
      );
      assert.ok(await settlesWithin(pending, 5_000), 'the cancelled call’s stream stays open');
      await assertHealthy(healthzOf(bridge.mcpUrl));
    } finally {
      await bridge.close();
    }
  });
});

describe('operations endpoints', () => {
  it('/readyz names the failing upstream in the bridge’s own words, never the upstream’s body', async () => {
    const config = configFile({
      upstreams: [
        { name: 'leaky', url: oxp.url('leaky-500') },
        { name: 'garbled', url: oxp.url('leaky-not-json') },
        { name: 'gone', url: 'http://127.0.0.1:1' },
      ],
    });
    const bridge = (await startBridge(testConfig(['--config', config]), createLogger('silent'))) as RunningBridge & { mcpUrl: string };
    try {
      const res = await fetch(new URL('/readyz', bridge.mcpUrl));
      const text = await res.text();
      assert.equal(res.status, 503);
      assert.ok(!text.includes('CANARY') && !text.includes('10.0.0.5') && !text.includes('password'), `upstream text on /readyz: ${text}`);
      const body = JSON.parse(text) as { upstreams: Record<string, { lastError?: string }> };
      assert.equal(body.upstreams.leaky?.lastError, 'HTTP 500 from GET /tools');
      assert.match(body.upstreams.garbled?.lastError ?? '', /^GET \/tools answered a body that is not JSON \(\d+ bytes\)$/);
      assert.equal(body.upstreams.gone?.lastError, 'GET /tools: connection refused');
      assert.ok(READYZ_CANARY.includes('CANARY'));
      await assertHealthy(healthzOf(bridge.mcpUrl));
    } finally {
      await bridge.close();
    }
  });

  it('on a loopback bind, ops endpoints answer only localhost Host names (DNS rebinding)', async () => {
    const bridge = await bridgeWith('slow');
    try {
      const { port } = new URL(bridge.mcpUrl);
      for (const path of ['/readyz', '/metrics', '/healthz', '/.well-known/oauth-protected-resource']) {
        const rebound = await get(bridge.mcpUrl, path, { host: `attacker.example:${port}` });
        assert.equal(rebound.status, 403, `${path} answered ${rebound.status} to a foreign Host`);
        assert.ok(!rebound.body.includes('upstreams') && !rebound.body.includes('nodejs_'), `${path} leaked to a foreign Host`);
      }
      assert.equal((await get(bridge.mcpUrl, '/readyz', { host: `localhost:${port}` })).status, 200);
      assert.equal((await get(bridge.mcpUrl, '/metrics', { host: `127.0.0.1:${port}` })).status, 200);
      await assertHealthy(healthzOf(bridge.mcpUrl));
    } finally {
      await bridge.close();
    }
  });

  it('/metrics needs the configured token (MCP_METRICS_TOKEN)', async () => {
    const token = 'metrics-token-0123456789abcdef';
    const bridge = await bridgeWith('slow', {}, [], { MCP_METRICS_TOKEN: token });
    try {
      const url = new URL('/metrics', bridge.mcpUrl);
      assert.equal((await fetch(url)).status, 401);
      assert.equal((await fetch(url, { headers: { authorization: 'Bearer wrong-token-0123456789abcdef' } })).status, 401);
      const ok = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(ok.status, 200);
      assert.match(await ok.text(), /mcp_oxp_bridge_/);
      await assertHealthy(healthzOf(bridge.mcpUrl));
    } finally {
      await bridge.close();
    }
  });

  it('OAuth: the metadata and challenges name the configured resource, whatever the Host header; without one the bridge refuses to start', async () => {
    const oauth = ['--oauth-issuer', 'https://issuer.example', '--oauth-audience', 'mcp', '--oauth-jwks-url', 'https://issuer.example/jwks'];
    await assert.rejects(
      bridgeWith('slow', {}, oauth),
      (error: unknown) => error instanceof ConfigError && /resourceUrl|MCP_OAUTH_RESOURCE_URL/.test(error.message),
    );
    const bridge = await bridgeWith('slow', {}, [...oauth, '--oauth-resource-url', 'https://mcp.example.com/mcp']);
    try {
      const { port } = new URL(bridge.mcpUrl);
      for (const host of [`localhost:${port}`, `127.0.0.1:${port}`]) {
        const metadata = await get(bridge.mcpUrl, '/.well-known/oauth-protected-resource/mcp', { host });
        assert.equal(metadata.status, 200);
        assert.equal((JSON.parse(metadata.body) as { resource: string }).resource, 'https://mcp.example.com/mcp');
      }
      const challenge = await fetch(bridge.mcpUrl, { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify(call(1, 'Slow')) });
      assert.equal(challenge.status, 401);
      assert.match(challenge.headers.get('www-authenticate') ?? '', /resource_metadata="https:\/\/mcp\.example\.com\/\.well-known\/oauth-protected-resource"/);
      await assertHealthy(healthzOf(bridge.mcpUrl));
    } finally {
      await bridge.close();
    }
  });
});

/** A GET with chosen headers (fetch forbids setting Host). */
async function get(base: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const conn = await rawConnect(
    base,
    `GET ${path} HTTP/1.1\r\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')}connection: close\r\n\r\n`,
  );
  await settlesWithin(conn.closed, 5_000);
  conn.destroy();
  const status = Number(/^HTTP\/1\.1 (\d+)/.exec(conn.received)?.[1] ?? 0);
  return { status, body: conn.received.slice(conn.received.indexOf('\r\n\r\n') + 4) };
}

// One process at a time: process start-ups run together would only compete for the CPU.
describe('SIGTERM ends the process within the grace period plus a second, whatever peers do', () => {
  const GRACE_S = 2;
  const graceConfig = () => configFile({ http: { shutdownGraceSeconds: GRACE_S } });

  async function assertExitsInTime(proc: BridgeProcess): Promise<void> {
    const signalled = Date.now();
    proc.child.kill('SIGTERM');
    const exited = await settlesWithin(proc.exited, (GRACE_S + 1) * 1000);
    const took = Date.now() - signalled;
    if (!exited) proc.kill();
    assert.ok(exited, `still running ${took} ms after SIGTERM (grace ${GRACE_S} s):\n${proc.logs.slice(-5).join('\n')}`);
  }

  it('bridge: with a withheld request body', async () => {
    const proc = await startBridgeProcess(['--oxp-url', oxp.url('slow'), '--port', '0', '--config', graceConfig()]);
    try {
      await assertHealthy(healthzOf(proc.url));
      const conn = await withheldBody(proc.url);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await assertExitsInTime(proc);
      conn.destroy();
    } finally {
      proc.kill();
    }
  });

  it('bridge: with calls to a silent upstream (with and without a progress token)', async () => {
    const proc = await startBridgeProcess(['--oxp-url', oxp.url('hold'), '--port', '0', '--config', graceConfig()]);
    try {
      await assertHealthy(healthzOf(proc.url));
      const pending = [
        fetch(proc.url, { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify(call(1, 'Hold', { tag: 'term-plain' })) }).catch(() => undefined),
        fetch(proc.url, {
          method: 'POST',
          headers: MCP_HEADERS,
          body: JSON.stringify(call(2, 'Hold', { tag: 'term-progress' }, { progressToken: 't' })),
        }).catch(() => undefined),
      ];
      await waitFor(() => heldCallArrivedAt.has('term-plain') && heldCallArrivedAt.has('term-progress'));
      await assertExitsInTime(proc);
      await Promise.all(pending);
    } finally {
      proc.kill();
    }
  });

  it('bridge over stdio: with a call to a silent upstream', async () => {
    const { child, exited } = spawnStdioCli(oxp.url('hold'), ['--config', graceConfig()]);
    try {
      const stderr = collect(child.stderr);
      await waitFor(() => stderr().includes('stdio transport ready'), 20_000);
      child.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`,
      );
      child.stdin.write(`${JSON.stringify(call(1, 'Hold', { tag: 'term-stdio' }))}\n`);
      await waitFor(() => heldCallArrivedAt.has('term-stdio'));
      const signalled = Date.now();
      child.kill('SIGTERM');
      assert.ok(await settlesWithin(exited, (GRACE_S + 1) * 1000), `stdio bridge still running ${Date.now() - signalled} ms after SIGTERM`);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('oxp-server: with a withheld body and a call to a silent MCP server', async () => {
    const mcp = hostileMcpCommand('silent-call');
    const proc = await startBridgeProcess(['oxp-server', '--port', '0', '--mcp-command', [mcp.command, ...mcp.args].join(' '), '--config', graceConfig()]);
    try {
      const health = new URL('/health', proc.url).toString();
      // The port listens before upstreams connect: wait for the MCP server to be connected.
      await until(async () => (await fetch(health)).status === 200, 20_000);
      await assertHealthy(health, 'the oxp-server');
      const conn = await withheldBody(`${proc.url}/tools/call`);
      const list = (await (await fetch(`${proc.url}/tools`)).json()) as { items: { id: string }[] };
      const pending = fetch(`${proc.url}/tools/call`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ $schema: 'urn:oxp:1.0', request: { tool_id: list.items[0]!.id, call_id: 'c1', input: {} } }),
      }).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 500));
      await assertExitsInTime(proc);
      conn.destroy();
      await pending;
    } finally {
      proc.kill();
    }
  });
});

describe('log lines', () => {
  it('carry the key "upstream" once (the name) and the URL as "upstream_url"', async () => {
    const proc = await startBridgeProcess(['--oxp-url', oxp.url('slow'), '--port', '0', '--log-level', 'info']);
    try {
      const line = proc.logs.find((l) => l.includes('catalog loaded'));
      assert.ok(line, `no catalog line in:\n${proc.logs.join('\n')}`);
      assert.equal(line.match(/"upstream":/g)?.length, 1, line);
      const parsed = JSON.parse(line) as { upstream: string; upstream_url: string };
      assert.equal(parsed.upstream, 'default');
      assert.equal(parsed.upstream_url, oxp.url('slow'));
      await assertHealthy(healthzOf(proc.url));
    } finally {
      proc.kill();
      await proc.exited;
    }
  });
});

describe('oxp-server /health', () => {
  it('says unavailable without the MCP server’s error text', async () => {
    const proc = await startBridgeProcess(['oxp-server', '--port', '0', '--mcp-url', 'http://127.0.0.1:1/mcp']);
    try {
      const res = await fetch(new URL('/health', proc.url));
      const text = await res.text();
      assert.equal(res.status, 503);
      const body = JSON.parse(text) as { status: string; upstreams: Record<string, unknown>[] };
      assert.equal(body.status, 'unavailable');
      // Per-upstream state in the bridge's own words: no URL, no error text.
      for (const upstream of body.upstreams) assert.deepEqual(Object.keys(upstream).sort(), ['state', 'toolkit', 'tools']);
      assert.doesNotMatch(text, /127\.0\.0\.1|[Rr]efused|[Ff]etch|ECONNREFUSED|\/mcp/);
    } finally {
      proc.kill();
      await proc.exited;
    }
  });
});

describe('stdio: a line over the 10 MiB bound', () => {
  it('gets a JSON-RPC error and a logged exit with a non-zero code, not a silent wedge', async () => {
    const { child, exited } = spawnStdioCli(oxp.url('slow'));
    try {
      const stderr = collect(child.stderr);
      const stdout = collect(child.stdout);
      child.stdin.on('error', () => undefined);
      await waitFor(() => stderr().includes('stdio transport ready'), 20_000);
      const chunk = 'x'.repeat(1024 * 1024);
      for (let i = 0; i < 11; i++) child.stdin.write(chunk);
      assert.ok(await settlesWithin(exited, 15_000), `the stdio bridge is still running 15 s after an 11 MiB line:\n${stderr().slice(-2000)}`);
      assert.notEqual(await exited, 0);
      assert.match(stderr(), /the MCP stdio transport closed: exiting/);
      const answer = JSON.parse(stdout().trim().split('\n').pop()!) as { id: unknown; error: { code: number; message: string } };
      assert.equal(answer.id, null);
      assert.match(answer.error.message, /Message too large/);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

/** The real CLI over stdio against `oxpUrl`, with a promise of its exit. */
function spawnStdioCli(oxpUrl: string, extra: string[] = []) {
  const child = spawn(process.execPath, cliArgs(['--transport', 'stdio', '--oxp-url', oxpUrl, ...extra, '--log-level', 'info']), {
    cwd: REPO_ROOT,
    env: cleanChildEnv(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  return { child, exited };
}

function collect(stream: NodeJS.ReadableStream): () => string {
  let text = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => (text += chunk));
  return () => text;
}
