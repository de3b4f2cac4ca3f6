/**
 * The bridge's MCP face against a plain v2-SDK server (`createMcpHandler`,
 * `legacy: 'stateless'`, `responseMode: 'auto'`, a low-level `Server` with a
 * tools/list and a tools/call handler: the SDK as its documentation wires
 * it), input by input. Every input — valid requests of both eras and
 * systematic mutations of them (extra and missing members, odd ids, wrong
 * types, header/body disagreements, batches, notifications, unknown methods,
 * bodies that are not JSON or too large, other HTTP methods) — goes to both,
 * and both must answer with the same HTTP status, the same media type and
 * the same JSON-RPC messages in kind (result or error), id and error code.
 * Result contents differ by design (the tools differ), so inputs are chosen
 * so that whether an answer is a result does not depend on the tools: every
 * call names a tool both have, with arguments valid for both.
 *
 * What the bridge adds in front of the SDK on purpose is left out: the
 * Host/Origin, authentication and admission gate, signed 2025-era session
 * ids, and the JSON depth bound (hostile and integration suites cover them).
 *
 * The test also proves which of the bridge's two answers ran where it
 * matters: the plain requests are answered by the bridge itself
 * (hot-path.ts), the rest by the SDK — the comparison holds for both.
 *
 * The bridge classifies the hot shapes itself (hot-classify.ts) instead of
 * with the SDK's classifier; the near misses of those shapes
 * (test/helpers/hot-near-misses.ts: extra and missing members, wrong id
 * types, notifications and batches with these methods, header/body
 * mismatches, unknown or missing protocol versions, duplicate keys, envelopes
 * the SDK's schema takes or refuses) are what keep that copy honest.
 */
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Server, createMcpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { loadConfig, type LoadedConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/platform/log.js';
import { startBridge, type RunningBridge } from '../../src/commands/forward.js';
import { startOxpFixture, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { integrationTools } from '../helpers/it-bridge.js';
import { MODERN_META } from '../helpers/bridge-harness.js';
import { MODERN_REVISION } from '../helpers/modern-revision.js';
import { revisionsOfEra } from '../../src/core/mcp-versions.js';
import { parseBody } from '../helpers/it-http.js';
import { HOT_TOOL, hotNearMisses } from '../helpers/hot-near-misses.js';

const ACCEPT = 'application/json, text/event-stream';
const TOOL = HOT_TOOL;
const ARGS = { x: 21 };
const LEGACY = revisionsOfEra('legacy');

interface Shape {
  status: number;
  mediaType: string;
  messages: unknown;
}

function post(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method, headers: { ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}), ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** What must match: status, media type, and per message its id, kind and error code. */
async function shapeOf(url: string, method: string, headers: Record<string, string>, body: string | undefined): Promise<Shape> {
  const res = await post(url, method, headers, body);
  const contentType = typeof res.headers['content-type'] === 'string' ? res.headers['content-type'] : '';
  let messages: unknown;
  try {
    messages = parseBody(res.text, contentType).map((m) => ({
      id: m.id,
      kind: 'result' in m ? 'result' : 'error' in m ? 'error' : 'other',
      ...(isObject(m.error) ? { code: m.error.code } : {}),
    }));
  } catch {
    messages = `unparsed: ${res.text.slice(0, 80)}`;
  }
  return { status: res.status, mediaType: contentType.split(';')[0]!.trim(), messages };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The reference: the SDK as documented, with the bridge's capabilities and a tool of the same name. */
async function startReference(): Promise<{ url: string; close: () => Promise<void> }> {
  const handler = createMcpHandler(
    (ctx) => {
      // A server that issues requestState (as the bridge does for input_required) verifies it: a forged one is refused.
      const requestState = { verify: async () => Promise.reject(new Error('not ours')) };
      const server = new Server(
        { name: 'reference', version: '1.0.0' },
        { capabilities: { tools: { listChanged: ctx.era === 'modern' }, logging: {} }, requestState },
      );
      server.setRequestHandler('tools/list', async () => ({ tools: [{ name: TOOL, inputSchema: { type: 'object' } }] }));
      server.setRequestHandler('tools/call', async (request) => ({ content: [{ type: 'text', text: `called ${request.params.name}` }] }));
      return server;
    },
    { legacy: 'stateless', responseMode: 'auto' },
  );
  const node = toNodeHandler(handler);
  const server: HttpServer = createServer((req, res) => void node(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await handler.close();
    },
  };
}

interface Input {
  label: string;
  method?: string;
  headers: Record<string, string>;
  body?: string;
}

const json = (value: unknown) => JSON.stringify(value);
const legacyHeaders = (version?: string): Record<string, string> => ({
  'content-type': 'application/json',
  accept: ACCEPT,
  ...(version ? { 'mcp-protocol-version': version } : {}),
});
const modernHeaders = (method: string, name?: string): Record<string, string> => ({
  'content-type': 'application/json',
  accept: ACCEPT,
  'mcp-protocol-version': MODERN_REVISION,
  'mcp-method': method,
  ...(name !== undefined ? { 'mcp-name': name } : {}),
});

/** A valid request and its mutations, for one era. */
function mutations(label: string, headers: Record<string, string>, message: Record<string, unknown>): Input[] {
  const params = (message.params ?? {}) as Record<string, unknown>;
  const withParams = (extra: Record<string, unknown>) => ({ ...message, params: { ...params, ...extra } });
  const without = (key: string) => Object.fromEntries(Object.entries(message).filter(([k]) => k !== key));
  const out: [string, unknown][] = [
    ['valid', message],
    ['extra top-level member', { ...message, extra: 1 }],
    ['no jsonrpc', without('jsonrpc')],
    ['jsonrpc 1.0', { ...message, jsonrpc: '1.0' }],
    ['no id (a notification)', without('id')],
    ['id null', { ...message, id: null }],
    ['id 0', { ...message, id: 0 }],
    ['id -7', { ...message, id: -7 }],
    ['id ""', { ...message, id: '' }],
    ['id 1.5', { ...message, id: 1.5 }],
    ['id true', { ...message, id: true }],
    ['id {}', { ...message, id: {} }],
    ['id 2^53+2', { ...message, id: 2 ** 53 + 2 }],
    ['id max safe', { ...message, id: Number.MAX_SAFE_INTEGER }],
    ['method a number', { ...message, method: 7 }],
    ['no method', without('method')],
    ['params an array', { ...message, params: [1] }],
    ['params a string', { ...message, params: 'x' }],
    ['params null', { ...message, params: null }],
    ['extra params member', withParams({ extra: 1 })],
    ['_meta a string', withParams({ _meta: 'x' })],
    ['traceparent in _meta', withParams({ _meta: { ...(params._meta as object), traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } })],
  ];
  if (message.method === 'tools/call') {
    out.push(
      ['no name', { ...message, params: { ...params, name: undefined } }],
      ['name a number', withParams({ name: 7 })],
      ['arguments an array', withParams({ arguments: [1] })],
      ['arguments a string', withParams({ arguments: 'x' })],
      ['no arguments', { ...message, params: Object.fromEntries(Object.entries(params).filter(([k]) => k !== 'arguments')) }],
      ['task-augmented', withParams({ task: { ttl: 1000 } })],
    );
  } else {
    out.push(['cursor a number', withParams({ cursor: 7 })]);
  }
  return out.map(([what, body]) => ({ label: `${label}: ${what}`, headers, body: json(body) }));
}

function headerMutations(label: string, headers: Record<string, string>, body: string): Input[] {
  const drop = (name: string) => Object.fromEntries(Object.entries(headers).filter(([k]) => k !== name));
  return [
    { label: `${label}: no content-type`, headers: drop('content-type'), body },
    { label: `${label}: text/plain`, headers: { ...headers, 'content-type': 'text/plain' }, body },
    { label: `${label}: json with charset`, headers: { ...headers, 'content-type': 'application/json; charset=utf-8' }, body },
    { label: `${label}: no accept`, headers: drop('accept'), body },
    { label: `${label}: accept json only`, headers: { ...headers, accept: 'application/json' }, body },
    { label: `${label}: accept sse only`, headers: { ...headers, accept: 'text/event-stream' }, body },
    { label: `${label}: accept */*`, headers: { ...headers, accept: '*/*' }, body },
    { label: `${label}: unsupported version header`, headers: { ...headers, 'mcp-protocol-version': '2099-01-01' }, body },
    { label: `${label}: legacy version header`, headers: { ...headers, 'mcp-protocol-version': '2025-06-18' }, body },
    { label: `${label}: modern version header`, headers: { ...headers, 'mcp-protocol-version': MODERN_REVISION }, body },
    { label: `${label}: no version header`, headers: drop('mcp-protocol-version'), body },
    { label: `${label}: Mcp-Method mismatch`, headers: { ...headers, 'mcp-method': 'ping' }, body },
    { label: `${label}: no Mcp-Method`, headers: drop('mcp-method'), body },
    { label: `${label}: Mcp-Name mismatch`, headers: { ...headers, 'mcp-name': 'Other' }, body },
    { label: `${label}: no Mcp-Name`, headers: drop('mcp-name'), body },
    { label: `${label}: padded headers`, headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, k.startsWith('mcp-') ? ` ${v} ` : v])), body },
  ];
}

function inputs(): Input[] {
  const all: Input[] = [];
  let id = 1;
  const call = (meta?: Record<string, unknown>) => ({
    jsonrpc: '2.0',
    id: id++,
    method: 'tools/call',
    params: { name: TOOL, arguments: ARGS, ...(meta ? { _meta: meta } : {}) },
  });
  const list = (meta?: Record<string, unknown>) => ({ jsonrpc: '2.0', id: id++, method: 'tools/list', params: { ...(meta ? { _meta: meta } : {}) } });

  // 2026-07-28
  all.push(...mutations('modern tools/call', modernHeaders('tools/call', TOOL), call(MODERN_META)));
  all.push(...mutations('modern tools/list', modernHeaders('tools/list'), list(MODERN_META)));
  all.push(...headerMutations('modern tools/call', modernHeaders('tools/call', TOOL), json(call(MODERN_META))));
  all.push(...headerMutations('modern tools/list', modernHeaders('tools/list'), json(list(MODERN_META))));
  const envelopes: [string, Record<string, unknown>][] = [
    ['no clientInfo', { 'io.modelcontextprotocol/protocolVersion': MODERN_REVISION, 'io.modelcontextprotocol/clientCapabilities': {} }],
    [
      'no clientCapabilities',
      { 'io.modelcontextprotocol/protocolVersion': MODERN_REVISION, 'io.modelcontextprotocol/clientInfo': { name: 'x', version: '1' } },
    ],
    ['clientInfo a string', { ...MODERN_META, 'io.modelcontextprotocol/clientInfo': 'x' }],
    ['clientInfo without version', { ...MODERN_META, 'io.modelcontextprotocol/clientInfo': { name: 'x' } }],
    ['capabilities a string', { ...MODERN_META, 'io.modelcontextprotocol/clientCapabilities': 'all' }],
    [
      'capabilities with extensions',
      { ...MODERN_META, 'io.modelcontextprotocol/clientCapabilities': { experimental: { a: {} }, extensions: { 'io.example/x': {} }, roots: {} } },
    ],
    ['form elicitation', { ...MODERN_META, 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } }],
    ['URL elicitation', { ...MODERN_META, 'io.modelcontextprotocol/clientCapabilities': { elicitation: { url: {} } } }],
    ['protocolVersion a number', { ...MODERN_META, 'io.modelcontextprotocol/protocolVersion': 20260728 }],
    ['unknown revision', { ...MODERN_META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }],
    ['legacy revision claimed', { ...MODERN_META, 'io.modelcontextprotocol/protocolVersion': '2025-06-18' }],
    ['progress token', { ...MODERN_META, progressToken: 'p' }],
    ['unknown _meta key', { ...MODERN_META, 'io.example/x': 1 }],
  ];
  for (const [what, meta] of envelopes) {
    all.push({ label: `modern tools/call envelope: ${what}`, headers: modernHeaders('tools/call', TOOL), body: json(call(meta)) });
    all.push({ label: `modern tools/list envelope: ${what}`, headers: modernHeaders('tools/list'), body: json(list(meta)) });
  }
  for (const [what, method] of [
    ['ping', 'ping'],
    ['unknown method', 'tools/unknown'],
    ['initialize', 'initialize'],
    ['resources/list', 'resources/list'],
  ] as const) {
    all.push({ label: `modern ${what}`, headers: modernHeaders(method), body: json({ jsonrpc: '2.0', id: id++, method, params: { _meta: MODERN_META } }) });
  }
  all.push({
    label: 'modern notification',
    headers: modernHeaders('notifications/initialized'),
    body: json({ jsonrpc: '2.0', method: 'notifications/initialized', params: { _meta: MODERN_META } }),
  });
  all.push({
    label: 'modern requestState (not ours)',
    headers: modernHeaders('tools/call', TOOL),
    body: json({ ...call(MODERN_META), params: { name: TOOL, arguments: ARGS, requestState: 'v1.forged', _meta: MODERN_META } }),
  });
  all.push({ label: 'batch with a modern element', headers: modernHeaders('tools/list'), body: json([list(MODERN_META)]) });

  // 2025 era, every revision, with and without the version header
  for (const version of [...LEGACY, undefined]) {
    const tag = `legacy ${version ?? 'header-less'}`;
    all.push(...mutations(`${tag} tools/call`, legacyHeaders(version), call()));
    all.push(...mutations(`${tag} tools/list`, legacyHeaders(version), list()));
  }
  all.push(...headerMutations('legacy tools/call', legacyHeaders('2025-11-25'), json(call())));
  all.push(...headerMutations('legacy tools/list', legacyHeaders('2025-11-25'), json(list())));
  const legacy = legacyHeaders('2025-11-25');
  all.push(
    { label: 'legacy progress token', headers: legacy, body: json(call({ progressToken: 7 })) },
    { label: 'legacy ping', headers: legacy, body: json({ jsonrpc: '2.0', id: id++, method: 'ping' }) },
    { label: 'legacy unknown method', headers: legacy, body: json({ jsonrpc: '2.0', id: id++, method: 'tools/unknown' }) },
    {
      label: 'legacy initialize',
      headers: legacyHeaders(),
      body: json({
        jsonrpc: '2.0',
        id: id++,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      }),
    },
    {
      label: 'legacy initialize, invalid params',
      headers: legacyHeaders(),
      body: json({ jsonrpc: '2.0', id: id++, method: 'initialize', params: { protocolVersion: '2025-06-18' } }),
    },
    {
      label: 'legacy initialize with a modern header',
      headers: { ...legacyHeaders(), 'mcp-protocol-version': MODERN_REVISION },
      body: json({
        jsonrpc: '2.0',
        id: id++,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      }),
    },
    { label: 'legacy notification', headers: legacy, body: json({ jsonrpc: '2.0', method: 'notifications/initialized' }) },
    { label: 'legacy cancellation', headers: legacy, body: json({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }) },
    { label: 'posted response', headers: legacy, body: json({ jsonrpc: '2.0', id: 5, result: {} }) },
    { label: 'batch of two', headers: legacy, body: json([list(), call()]) },
    { label: 'batch with a notification', headers: legacy, body: json([list(), { jsonrpc: '2.0', method: 'notifications/initialized' }]) },
    { label: 'batch of notifications', headers: legacy, body: json([{ jsonrpc: '2.0', method: 'notifications/initialized' }]) },
    { label: 'empty batch', headers: legacy, body: '[]' },
    { label: 'batch with an invalid element', headers: legacy, body: json([list(), 5]) },
    { label: 'not JSON', headers: legacy, body: '{"jsonrpc":' },
    { label: 'empty body', headers: legacy, body: '' },
    { label: 'JSON string', headers: legacy, body: '"x"' },
    { label: 'JSON number', headers: legacy, body: '5' },
    { label: 'JSON null', headers: legacy, body: 'null' },
    { label: 'BOM before JSON', headers: legacy, body: `\ufeff${json(list())}` },
    { label: 'too large (declared)', headers: legacy, body: json({ ...list(), params: { cursor: 'x'.repeat(4 * 1024 * 1024) } }) },
    { label: 'GET', method: 'GET', headers: { accept: 'text/event-stream' } },
    { label: 'GET with a modern header', method: 'GET', headers: { accept: 'text/event-stream', 'mcp-protocol-version': MODERN_REVISION } },
    { label: 'DELETE', method: 'DELETE', headers: legacy },
    { label: 'PUT', method: 'PUT', headers: legacy, body: json(list()) },
  );
  for (const miss of hotNearMisses()) all.push({ label: `hot shape, ${miss.category}: ${miss.label}`, headers: miss.headers, body: miss.body });
  return all;
}

describe('the bridge answers as the plain SDK server does', () => {
  let fixture: OxpFixtureServer;
  let bridge: RunningBridge;
  let reference: { url: string; close: () => Promise<void> };

  before(async () => {
    fixture = await startOxpFixture({ tools: integrationTools() });
    const { config } = loadConfig(['--oxp-url', fixture.url, '--port', '0', '--log-level', 'silent'], {}) as LoadedConfig;
    bridge = await startBridge(config, createLogger('silent'));
    reference = await startReference();
    // The bridge answers plain requests itself once its request validators are in (loaded off the start-up path).
    await new Promise((resolve) => setTimeout(resolve, 500));
  });
  after(async () => {
    await bridge?.close();
    await reference?.close();
    await fixture?.close();
  });

  it('same status, media type, and JSON-RPC kinds, ids and error codes for every input', async () => {
    const cases = inputs();
    assert.ok(cases.length > 400, `${cases.length} inputs`);
    assert.ok(hotNearMisses().filter((c) => c.category !== 'valid').length >= 90, "the hot shapes' near misses");
    const differences: string[] = [];
    for (const input of cases) {
      const method = input.method ?? 'POST';
      const ours = await shapeOf(bridge.mcpUrl!, method, input.headers, input.body);
      const theirs = await shapeOf(reference.url, method, input.headers, input.body);
      try {
        assert.deepEqual(ours, theirs);
      } catch {
        differences.push(`${input.label}\n    bridge:    ${json(ours)}\n    reference: ${json(theirs)}`);
      }
    }
    assert.equal(differences.length, 0, `${differences.length} of ${cases.length} inputs answered differently:\n  ${differences.join('\n  ')}`);
  });
});
