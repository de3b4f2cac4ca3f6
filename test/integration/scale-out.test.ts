/**
 * Scale-out with nothing shared: three bridge replicas (same MCP_SESSION_SECRET,
 * nothing else in common) behind a real round-robin nginx on loopback. Legacy
 * sessionful clients, header-less 2024-11-05 clients and 2026-07-28 clients
 * keep working while their consecutive requests land on different replicas.
 *
 * nginx comes from Debian's packages, installed by `.ci/run`; without it the
 * suite is skipped with the reason, except under CI=true, where it fails.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createLogger } from '../../src/platform/log.js';
import { startBridge, type RunningBridge } from '../../src/commands/forward.js';
import { demoFixtureTools, startOxpFixture, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { MCP_HEADERS, readMessages, testConfig } from '../helpers/bridge-harness.js';
import { assertValidServerMessage } from '../helpers/mcp-schema.js';
import { requireNginx, startNginx, type Nginx } from '../helpers/nginx.js';

const nginx = requireNginx();

describe('three replicas behind round-robin nginx', { skip: nginx.why ?? false }, () => {
  let fixture: OxpFixtureServer;
  const replicas: RunningBridge[] = [];
  let proxy: Nginx | undefined;
  let url = '';

  before(async () => {
    fixture = await startOxpFixture({ tools: demoFixtureTools() });
    const env = { MCP_SESSION_SECRET: 'replicas-share-only-this-secret-0123456789' };
    for (let i = 0; i < 3; i++)
      replicas.push(await startBridge(testConfig(['--oxp-url', fixture.url, '--allowed-hosts', '127.0.0.1,localhost'], env), createLogger('silent')));
    const proxied = await startNginx(
      nginx.path!,
      replicas.map((r) => r.mcpUrl!),
    );
    proxy = proxied;
    url = proxied.url;
  });
  after(async () => {
    proxy?.close();
    for (const r of replicas) await r.close();
    await fixture?.close();
  });

  /** tools/call counts per replica, read from each replica's own metrics. */
  async function callsPerReplica(): Promise<number[]> {
    return Promise.all(
      replicas.map(async (r) => {
        const text = await r.metrics.registry.metrics();
        return [...text.matchAll(/^mcp_oxp_bridge_requests_total\{method="tools\/call"[^}]*\} (\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
      }),
    );
  }

  it('v2 legacy clients at 2025-11-25 and 2025-06-18 (sessionful) work across replicas', async () => {
    for (const version of ['2025-11-25', '2025-06-18']) {
      const before = await callsPerReplica();
      const client = new Client({ name: 'scale', version: '1' }, { versionNegotiation: { mode: 'legacy' }, supportedProtocolVersions: [version] });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        assert.equal(client.getNegotiatedProtocolVersion(), version);
        for (let i = 0; i < 6; i++) {
          const result = await client.callTool({ name: 'Calculator_Add', arguments: { a: i, b: 1 } });
          assert.deepEqual(result.structuredContent, { sum: i + 1 });
        }
      } finally {
        await client.close();
      }
      const after = await callsPerReplica();
      assert.ok(
        after.every((n, i) => n > before[i]!),
        `every replica served calls of one session: ${before.join(',')} → ${after.join(',')}`,
      );
    }
  });

  it('a v1 @modelcontextprotocol/sdk client (sessionful) works across replicas', async () => {
    const client = new ClientV1({ name: 'scale-v1', version: '1' }, { capabilities: {} });
    await client.connect(new TransportV1(new URL(url)));
    try {
      for (let i = 0; i < 6; i++) {
        const result = await client.callTool({ name: 'Text_Echo', arguments: { text: `hi ${i}` } });
        assert.equal((result.content as { text: string }[])[0]!.text, `hi ${i}`);
      }
      assert.equal((await client.listTools()).tools.length > 0, true);
    } finally {
      await client.close();
    }
  });

  it('a header-less 2024-11-05 session gets 2024-11-05 shapes from every replica', async () => {
    const init = await fetch(url, {
      method: 'POST',
      headers: MCP_HEADERS,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
      }),
    });
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    for (let i = 0; i < 6; i++) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { ...MCP_HEADERS, 'mcp-session-id': session },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2 + i, method: 'tools/list' }),
      });
      assert.equal(res.status, 200, 'no "session not found" on any replica');
      const [msg] = await readMessages(res);
      assertValidServerMessage('2024-11-05', msg, 'tools/list');
    }
  });

  it('2026-07-28 clients are stateless by construction', async () => {
    const client = new Client({ name: 'scale-modern', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      for (let i = 0; i < 6; i++) assert.deepEqual((await client.callTool({ name: 'List_Numbers', arguments: {} })).structuredContent, [1, 2, 3]);
    } finally {
      await client.close();
    }
  });
});
