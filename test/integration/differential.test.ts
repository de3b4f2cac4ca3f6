/**
 * The HTTP fast path (src/mcp-front/fast-path.ts) against the SDK pipeline,
 * request by request: two bridges on the same fixture and session secret, one
 * with `--fast-path true`, one with `--fast-path false`, get the same raw
 * requests and must give the same answers (status, content type, SSE framing
 * and headers, JSON-RPC messages). The fast path's counters prove which side
 * answered: every plain tools/call and tools/list of every revision is its;
 * everything unusual (bad headers, progress, tasks, notifications, batches,
 * unknown revisions…) is left to the SDK. The rest of the HTTP suites run
 * against both paths too (test/run.mjs, second pass).
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { loadConfig, type LoadedConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { startBridge, type RunningBridge } from '../../src/main.js';
import { startOxpFixture, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { integrationTools } from '../helpers/it-bridge.js';
import { MODERN_META } from '../helpers/bridge-harness.js';
import { parseBody } from '../helpers/it-http.js';

const SECRET = 'fast-path-equivalence-secret-0123456789';
const LEGACY = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
const ACCEPT = 'application/json, text/event-stream';

interface Answer {
  status: number;
  contentType: string | null;
  sseHeaders: Record<string, string | null>;
  messages: unknown;
}

/** node:http rather than fetch: it lets a test send any Host header. */
function post(url: string, headers: Record<string, string>, body: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { 'content-length': String(Buffer.byteLength(body)), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function send(url: string, headers: Record<string, string>, body: string): Promise<Answer> {
  const res = await post(url, headers, body);
  const text = res.text;
  const header = (name: string) => (typeof res.headers[name] === 'string' ? (res.headers[name] as string) : null);
  const contentType = header('content-type');
  let messages: unknown;
  try {
    messages = text.trim() === '' ? [] : parseBody(text, contentType);
  } catch {
    messages = text;
  }
  // Values that differ between two honest runs: the current time.
  messages = JSON.parse(JSON.stringify(messages).replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>'));
  const sseHeaders: Record<string, string | null> = (contentType ?? '').includes('text/event-stream')
    ? { 'cache-control': header('cache-control'), connection: header('connection'), 'x-accel-buffering': header('x-accel-buffering') }
    : {};
  return { status: res.status, contentType, sseHeaders, messages };
}

function bridgeConfig(fixtureUrl: string, fast: boolean) {
  return (loadConfig(['--fast-path', String(fast), '--oxp-url', fixtureUrl, '--port', '0', '--log-level', 'silent', '--page-size', '3'], { MCP_SESSION_SECRET: SECRET }) as LoadedConfig).config;
}

let nextId = 1;
const rpc = (method: string, params?: Record<string, unknown>, id: unknown = nextId++) => JSON.stringify({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) });

describe('HTTP fast path ≡ SDK path', () => {
  let fixture: OxpFixtureServer;
  let fast: RunningBridge;
  let sdk: RunningBridge;
  const sessions = new Map<string, string>();

  before(async () => {
    fixture = await startOxpFixture({ tools: integrationTools() });
    fast = await startBridge(bridgeConfig(fixture.url, true), createLogger('silent'));
    sdk = await startBridge(bridgeConfig(fixture.url, false), createLogger('silent'));
    assert.equal(sdk.fastPathStats, undefined, 'the SDK-path bridge has no fast path');
    // Session ids are self-contained and signed with the shared secret: one minted by either bridge serves both.
    for (const version of LEGACY) {
      const res = await fetch(sdk.mcpUrl!, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: ACCEPT },
        body: rpc('initialize', { protocolVersion: version, capabilities: {}, clientInfo: { name: 'eq', version: '1' } }),
      });
      await res.text();
      sessions.set(version, res.headers.get('mcp-session-id')!);
    }
    // The fast path's validators load off the start-up path.
    for (let i = 0; i < 100 && !(await servesFast()); i++) await new Promise((r) => setTimeout(r, 20));
  });
  after(async () => {
    await fast?.close();
    await sdk?.close();
    await fixture?.close();
  });

  async function servesFast(): Promise<boolean> {
    const before = fast.fastPathStats!.served;
    await send(fast.mcpUrl!, { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': '2025-11-25' }, rpc('tools/list'));
    return fast.fastPathStats!.served > before;
  }

  /** Sends to both bridges; asserts equal answers and whether the fast path took it. */
  async function same(label: string, headers: Record<string, string>, body: string, expectFast: boolean): Promise<Answer> {
    const served = fast.fastPathStats!.served;
    const a = await send(fast.mcpUrl!, headers, body);
    const b = await send(sdk.mcpUrl!, headers, body);
    assert.deepEqual(a, b, `${label}: fast-path and SDK answers differ`);
    assert.equal(fast.fastPathStats!.served - served, expectFast ? 1 : 0, `${label}: ${expectFast ? 'the fast path should answer' : 'the SDK should answer'}`);
    return a;
  }

  const modernHeaders = (method: string, name?: string): Record<string, string> => ({
    'content-type': 'application/json',
    accept: ACCEPT,
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    ...(name !== undefined ? { 'mcp-name': name } : {}),
  });

  const calls: [string, Record<string, unknown> | undefined][] = [
    ['Calculator_Add', { a: 2, b: 3 }],
    ['Calculator_Add', { a: 'two', b: 3 }],
    ['Calculator_Add', undefined],
    ['Doorbell_Ring', { doorbell_id: 'doorbell42' }],
    ['Doorbell_Ring', { doorbell_id: 'doorbell1' }],
    ['System_GetTimestamp', {}],
    ['Gmail_GetEmails', { n_emails: 2 }],
    ['List_Numbers', {}],
    ['Math_Double', { x: 21 }],
    ['No_Such_Tool', {}],
  ];

  it('every plain tools/list and tools/call, every legacy revision, header or session: same answers, all on the fast path', async () => {
    for (const version of LEGACY) {
      const variants: [string, Record<string, string>][] = [
        [`${version} header`, { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': version }],
        [`${version} session`, { 'content-type': 'application/json', accept: ACCEPT, 'mcp-session-id': sessions.get(version)! }],
        [`${version} session+header`, { 'content-type': 'application/json', accept: ACCEPT, 'mcp-session-id': sessions.get(version)!, 'mcp-protocol-version': version }],
      ];
      for (const [label, headers] of variants) {
        const first = await same(`${label} tools/list`, headers, rpc('tools/list'), true);
        const cursor = ((first.messages as { result?: { nextCursor?: string } }[])[0]?.result?.nextCursor)!;
        assert.ok(cursor, `${label}: a page size of 3 leaves more pages`);
        await same(`${label} tools/list page 2`, headers, rpc('tools/list', { cursor }), true);
        await same(`${label} tools/list bad cursor`, headers, rpc('tools/list', { cursor: 'not-a-cursor' }), true);
        for (const [name, args] of calls) await same(`${label} tools/call ${name}`, headers, rpc('tools/call', { name, ...(args ? { arguments: args } : {}) }), true);
      }
    }
    // No version header and no session: answered as 2025-03-26.
    await same('header-less tools/list', { 'content-type': 'application/json', accept: ACCEPT }, rpc('tools/list'), true);
    await same('header-less tools/call', { 'content-type': 'application/json', accept: ACCEPT }, rpc('tools/call', { name: 'Math_Double', arguments: { x: 2 } }), true);
    await same('string id', { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': '2025-06-18' }, rpc('tools/call', { name: 'Math_Double', arguments: { x: 2 } }, 'req-7'), true);
    await same('traceparent', { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': '2025-11-25', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }, rpc('tools/call', { name: 'Math_Double', arguments: { x: 2 } }), true);
  });

  it('every plain 2026-07-28 tools/list and tools/call: same answers, all on the fast path', async () => {
    const first = await same('modern tools/list', modernHeaders('tools/list'), rpc('tools/list', { _meta: MODERN_META }), true);
    const cursor = ((first.messages as { result?: { nextCursor?: string } }[])[0]?.result?.nextCursor)!;
    await same('modern tools/list page 2', modernHeaders('tools/list'), rpc('tools/list', { cursor, _meta: MODERN_META }), true);
    await same('modern tools/list bad cursor', modernHeaders('tools/list'), rpc('tools/list', { cursor: 'zzz', _meta: MODERN_META }), true);
    for (const [name, args] of calls) {
      await same(`modern tools/call ${name}`, modernHeaders('tools/call', name), rpc('tools/call', { name, ...(args ? { arguments: args } : {}), _meta: MODERN_META }), true);
    }
    const traced = { ...MODERN_META, traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };
    await same('modern traceparent', modernHeaders('tools/call', 'Math_Double'), rpc('tools/call', { name: 'Math_Double', arguments: { x: 1 }, _meta: traced }), true);
    const noInfo = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    await same('modern without clientInfo', modernHeaders('tools/list'), rpc('tools/list', { _meta: noInfo }), true);
  });

  it('envelope and id variants: whichever path takes them, the answers agree', async () => {
    const variants: [string, Record<string, unknown>][] = [
      ['clientInfo without version', { ...MODERN_META, 'io.modelcontextprotocol/clientInfo': { name: 'x' } }],
      ['clientInfo as a string', { ...MODERN_META, 'io.modelcontextprotocol/clientInfo': 'x' }],
      ['clientInfo with extra fields', { ...MODERN_META, 'io.modelcontextprotocol/clientInfo': { name: 'x', version: '1', title: 'X', websiteUrl: 'https://x.example' } }],
      ['capabilities with extensions and experimental', { ...MODERN_META, 'io.modelcontextprotocol/clientCapabilities': { experimental: { a: {} }, extensions: { 'io.example/x': {} }, roots: {} } }],
      ['capabilities: form elicitation only', { ...MODERN_META, 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } }],
      ['capabilities: elicitation not an object', { ...MODERN_META, 'io.modelcontextprotocol/clientCapabilities': { elicitation: 1 } }],
      ['no clientCapabilities', { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'x', version: '1' } }],
      ['protocolVersion not a string', { ...MODERN_META, 'io.modelcontextprotocol/protocolVersion': 20260728 }],
      ['traceparent not a string', { ...MODERN_META, traceparent: 5 }],
    ];
    for (const [label, meta] of variants) {
      for (const body of [rpc('tools/call', { name: 'Math_Double', arguments: { x: 3 }, _meta: meta }), rpc('tools/list', { _meta: meta })]) {
        const method = body.includes('tools/call') ? 'tools/call' : 'tools/list';
        const headers = modernHeaders(method, method === 'tools/call' ? 'Math_Double' : undefined);
        const a = await send(fast.mcpUrl!, headers, body);
        const b = await send(sdk.mcpUrl!, headers, body);
        assert.deepEqual(a, b, `${label} ${method}: fast-path and SDK answers differ`);
      }
    }
    const legacy = { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': '2025-06-18' };
    for (const [label, id] of [['id 0', 0], ['negative id', -7], ['empty string id', ''], ['max safe id', Number.MAX_SAFE_INTEGER]] as const) {
      const body = rpc('tools/call', { name: 'Math_Double', arguments: { x: 3 } }, id);
      assert.deepEqual(await send(fast.mcpUrl!, legacy, body), await send(sdk.mcpUrl!, legacy, body), `${label}: answers differ`);
    }
  });

  it('anything unusual is left to the SDK, and the answers still agree', async () => {
    const legacy = { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': '2025-11-25' };
    const cases: [string, Record<string, string>, string][] = [
      ['legacy Accept without SSE', { ...legacy, accept: 'application/json' }, rpc('tools/list')],
      ['legacy no Accept', { 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' }, rpc('tools/list')],
      ['text/plain body', { ...legacy, 'content-type': 'text/plain' }, rpc('tools/list')],
      ['unsupported version header', { ...legacy, 'mcp-protocol-version': '2099-01-01' }, rpc('tools/list')],
      ['modern header, no envelope', { ...legacy, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' }, rpc('tools/list')],
      ['forged session id', { 'content-type': 'application/json', accept: ACCEPT, 'mcp-session-id': 'forged' }, rpc('tools/list')],
      ['progress token', legacy, rpc('tools/call', { name: 'Math_Double', arguments: { x: 2 }, _meta: { progressToken: 7 } })],
      ['task-augmented call', legacy, rpc('tools/call', { name: 'Math_Double', arguments: { x: 2 }, task: { ttl: 1000 } })],
      ['arguments not an object', legacy, rpc('tools/call', { name: 'Math_Double', arguments: [1] })],
      ['name not a string', legacy, rpc('tools/call', { name: 7 })],
      ['fractional id', legacy, rpc('tools/list', undefined, 1.5)],
      ['null id', legacy, rpc('tools/list', undefined, null)],
      ['unsafe integer id', legacy, rpc('tools/list', undefined, 2 ** 53 + 2)],
      ['notification', legacy, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })],
      ['batch', legacy, `[${rpc('tools/list')}]`],
      ['ping', legacy, rpc('ping')],
      ['not JSON', legacy, '{"jsonrpc":'],
      ['internal header from a client', { ...legacy, 'x-mcp-oxp-bridge-url-elicitation': '1' }, rpc('tools/list')],
      ['foreign Origin', { ...legacy, origin: 'https://evil.example' }, rpc('tools/list')],
      ['foreign Host', { ...legacy, host: 'evil.example' }, rpc('tools/list')],
      ['modern: Mcp-Name mismatch', modernHeaders('tools/call', 'Other'), rpc('tools/call', { name: 'Math_Double', arguments: { x: 1 }, _meta: MODERN_META })],
      ['modern: no Mcp-Name', modernHeaders('tools/call'), rpc('tools/call', { name: 'Math_Double', arguments: { x: 1 }, _meta: MODERN_META })],
      ['modern: Mcp-Method mismatch', modernHeaders('tools/call', 'Math_Double'), rpc('tools/list', { _meta: MODERN_META })],
      ['modern: no version header', { 'content-type': 'application/json', 'mcp-method': 'tools/list' }, rpc('tools/list', { _meta: MODERN_META })],
      ['modern: unknown revision claimed', modernHeaders('tools/list'), rpc('tools/list', { _meta: { ...MODERN_META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } })],
      ['modern: bad clientCapabilities', modernHeaders('tools/list'), rpc('tools/list', { _meta: { ...MODERN_META, 'io.modelcontextprotocol/clientCapabilities': 'all' } })],
      ['modern: URL elicitation declared', modernHeaders('tools/call', 'Math_Double'), rpc('tools/call', { name: 'Math_Double', arguments: { x: 1 }, _meta: { ...MODERN_META, 'io.modelcontextprotocol/clientCapabilities': { elicitation: { url: {} } } } })],
      ['modern: progress token', modernHeaders('tools/call', 'Math_Double'), rpc('tools/call', { name: 'Math_Double', arguments: { x: 1 }, _meta: { ...MODERN_META, progressToken: 'p' } })],
      ['modern: requestState', modernHeaders('tools/call', 'Math_Double'), rpc('tools/call', { name: 'Math_Double', arguments: { x: 1 }, requestState: 'v1.x', _meta: MODERN_META })],
      ['modern: initialize', modernHeaders('initialize'), rpc('initialize', { protocolVersion: '2026-07-28', capabilities: {}, clientInfo: { name: 'x', version: '1' }, _meta: MODERN_META })],
      ['legacy initialize', { 'content-type': 'application/json', accept: ACCEPT }, rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } })],
    ];
    for (const [label, headers, body] of cases) {
      const answer = await same(label, headers, body, false);
      // A minted session id differs per bridge (random nonce); the answers above still matched without it.
      assert.ok(answer.status > 0, label);
    }
  });
});
