/**
 * Legacy (2025-era) Streamable HTTP sessions: `initialize` mints an
 * `Mcp-Session-Id` that carries the negotiated revision, so a client that
 * never sends `MCP-Protocol-Version` (every 2024-11-05 client, and 2025-03-26
 * ones, which predate the header) is still answered in its own revision; a
 * forged id is refused with 404; GET /mcp is 405.
 */
import assert from 'node:assert/strict';
import { SessionCodec } from '../../src/forward/face/session.js';
import { after, before, describe, it } from 'node:test';
import type { McpRevision } from '../../src/core/mcp-versions.js';
import { startOxpFixture, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { integrationTools, startHttpBridge, type HttpBridge } from '../helpers/it-bridge.js';
import { connectHttp, LEGACY_REVISIONS, spec } from '../helpers/it-clients.js';
import { expectSuccess, expectToolsList, OUTPUT_CASES } from '../helpers/it-expect.js';
import { emptySseEvents, exchange, initializeRequest, request, type RawExchange } from '../helpers/it-http.js';
import { assertValidServerMessage } from '../helpers/mcp-schema.js';

const SESSION = 'mcp-session-id';

function only(ex: RawExchange, revision: McpRevision, method: string): Record<string, unknown> {
  assert.equal(ex.status, 200, `${method}: HTTP ${ex.status} ${ex.text.slice(0, 300)}`);
  assert.equal(ex.messages.length, 1, `${method}: one message, got ${ex.text.slice(0, 300)}`);
  if (revision < '2025-11-25')
    assert.deepEqual(emptySseEvents(ex.text, ex.headers.get('content-type')), [], `${method}: no data-less (priming) SSE events before 2025-11-25`);
  const message = ex.messages[0]!;
  assertValidServerMessage(revision, message, method);
  assert.ok('result' in message, `${method}: ${JSON.stringify(message)}`);
  return message.result as Record<string, unknown>;
}

describe('legacy HTTP sessions', () => {
  let fixture: OxpFixtureServer;
  let bridge: HttpBridge;
  let url: string;
  before(async () => {
    fixture = await startOxpFixture({ tools: integrationTools() });
    bridge = await startHttpBridge(fixture.url);
    url = bridge.mcpUrl;
  });
  after(async () => {
    await bridge?.close();
    await fixture?.close();
  });

  /** Opens a raw session at `version`; returns its id. */
  async function openSession(revision: McpRevision): Promise<string> {
    const init = await exchange(url, { body: initializeRequest(revision) });
    const result = only(init, revision, 'initialize');
    assert.equal(result.protocolVersion, revision);
    const id = init.headers.get(SESSION);
    assert.ok(id, `the ${revision} initialize response carries an Mcp-Session-Id`);
    const initialized = await exchange(url, { headers: { [SESSION]: id }, body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
    assert.equal(initialized.status, 202);
    return id;
  }

  it('the initialize response carries an Mcp-Session-Id (every legacy revision)', async () => {
    const ids = new Set<string>();
    for (const version of LEGACY_REVISIONS) ids.add(await openSession(version));
    assert.equal(ids.size, LEGACY_REVISIONS.length, 'one distinct id per session');
  });

  for (const version of LEGACY_REVISIONS) {
    it(`a ${version} client that never sends MCP-Protocol-Version gets ${version} shapes on later requests`, async () => {
      const id = await openSession(version);
      const list = only(await exchange(url, { headers: { [SESSION]: id }, body: request('tools/list') }), version, 'tools/list');
      expectToolsList(version, list, integrationTools());
      for (const c of OUTPUT_CASES) {
        const call = only(
          await exchange(url, { headers: { [SESSION]: id }, body: request('tools/call', { name: c.tool, arguments: c.args }) }),
          version,
          'tools/call',
        );
        expectSuccess(version, call, c, integrationTools());
      }
    });
  }

  it('without a session and without the header the transport default (2025-03-26) applies — the session is what carries 2024-11-05', async () => {
    const list = only(await exchange(url, { body: request('tools/list') }), '2025-03-26', 'tools/list');
    expectToolsList('2025-03-26', list, integrationTools());
  });

  it('a real SDK v1 client at 2024-11-05 that never sends MCP-Protocol-Version gets 2024-11-05 shapes', async () => {
    const seen: { method: string; headers: Headers }[] = [];
    const recordingFetch = (input: string | URL, init?: RequestInit) => {
      seen.push({ method: init?.method ?? 'GET', headers: new Headers(init?.headers) });
      return fetch(input, init);
    };
    const session = await connectHttp(spec('v1', '2024-11-05'), url, { withholdProtocolVersionHeader: true, fetch: recordingFetch });
    try {
      assert.equal(session.negotiatedRevision, '2024-11-05');
      await session.listTools();
      expectToolsList('2024-11-05', session.log.lastResponse('tools/list').result as Record<string, unknown>, integrationTools());
      for (const c of OUTPUT_CASES) {
        await session.callTool(c.tool, c.args);
        expectSuccess('2024-11-05', session.log.lastResponse('tools/call').result as Record<string, unknown>, c, integrationTools());
      }
      session.log.assertValid('2024-11-05');
      assert.deepEqual(
        session.errors.map((e) => e.message),
        [],
      );
      const posts = seen.filter((r) => r.method === 'POST');
      assert.ok(posts.length >= 2 + OUTPUT_CASES.length);
      for (const r of seen) assert.equal(r.headers.get('mcp-protocol-version'), null, 'the client never sent MCP-Protocol-Version');
      for (const r of posts.slice(1)) assert.ok(r.headers.get(SESSION), 'every request after initialize carried the session id');
    } finally {
      await session.close();
    }
  });

  it('a 2025-03-26 session may batch (no header): each response in 2025-03-26 shapes', async () => {
    const version = '2025-03-26';
    const id = await openSession(version);
    const list = request('tools/list');
    const call = request('tools/call', { name: 'List_Numbers', arguments: {} });
    const res = await exchange(url, { headers: { [SESSION]: id }, body: [list, call] });
    assert.equal(res.status, 200, res.text.slice(0, 300));
    const byId = new Map(res.messages.map((m) => [m.id, m]));
    assert.equal(byId.size, 2, res.text.slice(0, 300));
    assertValidServerMessage(version, byId.get(list.id), 'tools/list');
    assertValidServerMessage(version, byId.get(call.id), 'tools/call');
    expectToolsList(version, byId.get(list.id)!.result as Record<string, unknown>, integrationTools());
    expectSuccess(
      version,
      byId.get(call.id)!.result as Record<string, unknown>,
      OUTPUT_CASES.find((c) => c.tool === 'List_Numbers')!,
      integrationTools(),
    );
  });

  it('initialize asking for an unknown revision: the session carries the revision the server answered', async () => {
    const init = await exchange(url, { body: initializeRequest('2026-07-28') });
    const answered = only(init, '2025-11-25', 'initialize').protocolVersion as McpRevision;
    assert.equal(answered, '2025-11-25', 'a dual-era server never offers 2026-07-28 inside InitializeResult');
    const id = init.headers.get(SESSION);
    assert.ok(id);
    const list = only(await exchange(url, { headers: { [SESSION]: id }, body: request('tools/list') }), answered, 'tools/list');
    expectToolsList(answered, list, integrationTools());
  });

  it('a failed initialize (invalid params) mints no Mcp-Session-Id', async () => {
    const res = await exchange(url, { body: request('initialize', { protocolVersion: '2025-06-18' }) });
    assert.ok(res.messages.length === 1 && 'error' in res.messages[0]!, `initialize without capabilities/clientInfo fails: ${res.text.slice(0, 200)}`);
    assertValidServerMessage('2025-06-18', res.messages[0], 'initialize');
    assert.equal(res.headers.get(SESSION), null, 'no session id on a failed initialize');
  });

  it('a 2026-07-28 client is never given a session id', async () => {
    const sessionIds: string[] = [];
    const recordingFetch = async (input: string | URL, init?: RequestInit) => {
      const res = await fetch(input, init);
      const id = res.headers.get(SESSION);
      if (id !== null) sessionIds.push(id);
      return res;
    };
    const session = await connectHttp(spec('v2-modern', '2026-07-28'), url, { fetch: recordingFetch });
    try {
      await session.listTools();
      await session.callTool('Text_Echo', { text: 'modern' });
      session.log.assertValid('2026-07-28');
      assert.ok(session.log.received().length >= 3);
      assert.deepEqual(sessionIds, [], 'no Mcp-Session-Id on any modern response');
    } finally {
      await session.close();
    }
  });

  it('a forged or garbled session id gets HTTP 404', async () => {
    const genuine = await openSession('2024-11-05');
    assert.match(genuine, /^s2\.[A-Za-z0-9_-]+$/, `session id shape: ${genuine}`);
    const sealed = Buffer.from(genuine.slice(3), 'base64url');
    const flipped = Buffer.from(sealed);
    flipped[Math.floor(flipped.length / 2)] = flipped[Math.floor(flipped.length / 2)]! ^ 0x01;
    const forged = [
      'garbage',
      'not-a-session-id-0123456789',
      `s2.${flipped.toString('base64url')}`, // one bit changed in the ciphertext
      `s2.${sealed.subarray(0, sealed.length - 1).toString('base64url')}`, // truncated tag
      `${genuine}x`,
      new SessionCodec('another-replica-with-another-secret', 3600).mint('2025-11-25'), // sealed with another key
      `s1.${Buffer.from('{"v":"2025-11-25","iat":1}').toString('base64url')}.AAAA`,
    ];
    for (const id of forged) {
      const res = await exchange(url, { headers: { [SESSION]: id }, body: request('tools/list') });
      assert.equal(res.status, 404, `session id ${JSON.stringify(id)} → HTTP ${res.status} ${res.text.slice(0, 200)}`);
      const error = res.messages[0]?.error as { code?: unknown } | undefined;
      assert.equal(typeof error?.code, 'number', `a JSON-RPC error body: ${res.text.slice(0, 200)}`);
    }
    // The genuine id still works.
    only(await exchange(url, { headers: { [SESSION]: genuine }, body: request('tools/list') }), '2024-11-05', 'tools/list');
  });

  it('GET /mcp with a session → 405', async () => {
    const id = await openSession('2025-03-26');
    const res = await exchange(url, { method: 'GET', headers: { [SESSION]: id, accept: 'text/event-stream' } });
    assert.equal(res.status, 405, `HTTP ${res.status} ${res.text.slice(0, 200)}`);
  });
});
