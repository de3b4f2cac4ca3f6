/**
 * One limit across replicas: three bridge replicas behind a real round-robin
 * nginx share their access-rule counters through a real Redis
 * (Debian's redis-server, started here). A per-principal limit of 5 calls
 * holds across all three (15 calls, 5 pass, whichever replica answers);
 * another principal is not limited. Redis stopped mid-run: replicas set to
 * `allow` let limited calls through uncounted and stay healthy, while a bridge
 * configured with `refuse` refuses them; Redis back, counting resumes. With
 * `share`, the default, a frozen (SIGSTOP) or killed Redis leaves each replica
 * enforcing its share of the limit, so it holds approximately.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/platform/log.js';
import { startBridge, type RunningBridge } from '../../src/commands/forward.js';
import { demoFixtureTools, startOxpFixture, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { MCP_HEADERS, readMessages } from '../helpers/bridge-harness.js';
import { requireNginx, startNginx, type Nginx } from '../helpers/nginx.js';
import { requireRedisServer, startRedis, type TestRedis } from '../helpers/redis-server.js';

const BOB = 'bob-token-0123456789abcdef';
const ALICE = 'alice-token-0123456789abcd';
const ENV = { BOB_TOKEN: BOB, ALICE_TOKEN: ALICE, MCP_SESSION_SECRET: 'replicas-share-only-this-secret-0123456789' };
const nginx = requireNginx();
const redisMissing = requireRedisServer().why;

function config(redisUrl: string, onUnavailable: 'share' | 'allow' | 'refuse', oxpUrl: string) {
  const file = join(mkdtempSync(join(tmpdir(), 'bridge-limits-')), 'bridge.json');
  writeFileSync(
    file,
    JSON.stringify({
      auth: {
        tokens: [
          { name: 'bob', value: { env: 'BOB_TOKEN' }, groups: ['interns'] },
          { name: 'alice', value: { env: 'ALICE_TOKEN' }, groups: ['staff'] },
        ],
      },
      http: { allowedHosts: ['127.0.0.1', 'localhost'] },
      access: { rules: [{ id: 'interns-budget', effect: 'allow', principals: { groups: ['interns'] }, limits: { requestsPerMinute: 1, burst: 5 } }] },
      store: { redis: { url: redisUrl, onUnavailable } },
    }),
  );
  const loaded = loadConfig(['--config', file, '--oxp-url', oxpUrl, '--port', '0', '--log-level', 'silent'], ENV);
  if (typeof loaded === 'string') throw new Error(loaded);
  return loaded.config;
}

async function call(url: string, token: string): Promise<{ ok: boolean; kind?: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-06-18', authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'Calculator_Add', arguments: { a: 1, b: 2 } } }),
  });
  assert.equal(res.status, 200);
  const [msg] = await readMessages(res);
  const result = msg!.result as { isError?: boolean; _meta?: Record<string, { kind?: string }> };
  return result.isError ? { ok: false, kind: result._meta?.['mcp-oxp-bridge/error']?.kind ?? '?' } : { ok: true };
}

describe('a per-principal limit across three replicas (Redis)', { skip: nginx.why ?? redisMissing ?? false }, () => {
  let redis: TestRedis;
  let fixture: OxpFixtureServer;
  const replicas: RunningBridge[] = [];
  let refusing: RunningBridge;
  let proxy: Nginx;

  before(async () => {
    redis = await startRedis();
    fixture = await startOxpFixture({ tools: demoFixtureTools() });
    for (let i = 0; i < 3; i++) replicas.push(await startBridge(config(redis.url, 'allow', fixture.url), createLogger('silent'), ENV));
    refusing = await startBridge(config(redis.url, 'refuse', fixture.url), createLogger('silent'), ENV);
    proxy = await startNginx(
      nginx.path!,
      replicas.map((r) => r.mcpUrl!),
    );
  });
  after(async () => {
    proxy?.close();
    for (const r of [...replicas, refusing]) await r?.close();
    await fixture?.close();
    await redis?.close();
  });

  it('holds one limit: 5 of 15 calls pass across the replicas, each replica answering some; another principal is not limited', async () => {
    const calls = fixture.callCount();
    const results = [];
    for (let i = 0; i < 15; i++) results.push(await call(proxy.url, BOB));
    assert.equal(results.filter((r) => r.ok).length, 5);
    assert.deepEqual(
      results.filter((r) => !r.ok).map((r) => r.kind),
      Array(10).fill('rate_limited'),
    );
    assert.equal(fixture.callCount() - calls, 5, 'refused calls never reach the tool server');
    const perReplica = await Promise.all(replicas.map(async (r) => /outcome="rate_limited"[^\n]* (\d+)/.exec(await r.metrics.registry.metrics())?.[1] ?? '0'));
    assert.ok(perReplica.filter((n) => Number(n) > 0).length >= 2, `refusals spread over replicas: ${perReplica.join()}`);
    for (let i = 0; i < 8; i++) assert.deepEqual(await call(proxy.url, ALICE), { ok: true });
  });

  it('Redis stopped mid-run: the replicas (allow) pass limited calls uncounted and stay healthy; a bridge set to refuse refuses', async () => {
    await redis.stop();
    try {
      for (let i = 0; i < 6; i++) assert.deepEqual(await call(proxy.url, BOB), { ok: true });
      assert.deepEqual(await call(refusing.mcpUrl!, BOB), { ok: false, kind: 'store_unavailable' });
      assert.deepEqual(await call(refusing.mcpUrl!, ALICE), { ok: true }, 'calls no limit counts never ask the store');
      for (const r of replicas) {
        const res = await fetch(new URL('/readyz', r.mcpUrl), { signal: AbortSignal.timeout(1_000) });
        assert.equal(res.status, 200);
        await res.body?.cancel();
        assert.match(await r.metrics.registry.metrics(), /^mcp_oxp_bridge_limit_store_failures_total [1-9]/m);
      }
    } finally {
      await redis.start();
    }
    // Redis is back (empty, as a restarted Redis without persistence is): once each replica has reconnected,
    // counting resumes from a full bucket.
    for (const r of replicas) assert.equal(await (await r.bridge.limits!.loaded()).whenReady(15_000), true);
    let passed = 0;
    for (let i = 0; i < 20 && passed < 6; i++) if ((await call(proxy.url, BOB)).ok) passed++;
    assert.equal(passed, 5, 'five pass again, then the limit holds');
  });
});

describe('Redis frozen, then killed, under three replicas: each enforces its share (the default)', { skip: nginx.why ?? redisMissing ?? false }, () => {
  let redis: TestRedis;
  let fixture: OxpFixtureServer;
  const replicas: RunningBridge[] = [];
  let proxy: Nginx;

  before(async () => {
    redis = await startRedis();
    fixture = await startOxpFixture({ tools: demoFixtureTools() });
    for (let i = 0; i < 3; i++) replicas.push(await startBridge(config(redis.url, 'share', fixture.url), createLogger('silent'), ENV));
    proxy = await startNginx(
      nginx.path!,
      replicas.map((r) => r.mcpUrl!),
    );
  });
  after(async () => {
    proxy?.close();
    for (const r of replicas) await r?.close();
    await fixture?.close();
    await redis?.close();
  });

  /** Bob's calls through nginx: how many passed, every refusal a counted one (never store_unavailable). */
  async function bobCalls(n: number): Promise<number> {
    const results = [];
    for (let i = 0; i < n; i++) results.push(await call(proxy.url, BOB));
    assert.ok(
      results.every((r) => r.ok || r.kind === 'rate_limited'),
      JSON.stringify(results),
    );
    return results.filter((r) => r.ok).length;
  }

  it('5 per minute across the replicas: 3 pass through Redis, then Redis freezes (SIGSTOP) and at most 6 pass in all; killed, still at most the shares', async () => {
    for (const r of replicas) assert.equal(await (await r.bridge.limits!.loaded()).whenReady(15_000), true);
    // Each replica announces itself in Redis as it connects and every 5 s: within one beat all three count three.
    await new Promise((resolve) => setTimeout(resolve, 5_500));
    const calls = fixture.callCount();
    assert.equal(await bobCalls(3), 3, 'counted in Redis, one per replica (round robin), each charged to its share of 2');
    redis.freeze();
    let passedFrozen: number;
    try {
      passedFrozen = await bobCalls(12);
    } finally {
      redis.thaw();
    }
    // ceil(5 / 3) = 2 per replica: at most 3 more (each had spent one of its 2), 6 in all, against 15 with 'allow'.
    assert.ok(passedFrozen <= 3, `frozen Redis: ${passedFrozen} more passed`);
    assert.equal(fixture.callCount() - calls, 3 + passedFrozen, 'refused calls never reach the tool server');
    await redis.stop();
    try {
      // Killed: the shares' buckets are as the frozen run left them (1 per minute refills 1/3 per replica).
      const passedKilled = await bobCalls(9);
      assert.ok(3 + passedFrozen + passedKilled <= 7, `killed Redis: ${passedKilled} more passed`);
      for (const r of replicas) assert.match(await r.metrics.registry.metrics(), /^mcp_oxp_bridge_limit_store_failures_total [1-9]/m);
    } finally {
      await redis.start();
    }
  });
});
