/**
 * The oxp-server's OXP protocol rules over real HTTP: `$schema` negotiation,
 * tool version resolution exactly as the call-tool page says, and the odd
 * requests a tolerant server accepts (notes/oxp.md §3 item 34).
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { startMcpHttpFixture, type McpHttpFixture } from '../fixtures/mcp-fixture-server.js';
import { assertOxpSchema, assertReplyShape, startTestOxpServer, writeConfigFile, type OxpClient, type TestOxpServer } from '../helpers/oxp-server-harness.js';

describe('oxp-server: $schema and odd requests', () => {
  let fixture: McpHttpFixture;
  let server: TestOxpServer;
  let client: OxpClient;
  before(async () => {
    fixture = await startMcpHttpFixture({ version: '1.0.0' });
    server = await startTestOxpServer(['--mcp-url', `Fx=${fixture.url}`]);
    client = server.client;
  });
  after(async () => {
    await server?.close();
    await fixture?.close();
  });

  const ACCEPTED = [
    undefined,
    'urn:oxp:1.0',
    'urn:oxp:1.3',
    'https://github.com/OpenToolCalling/Specification/tree/main/spec/http/1.0/openapi.json',
    'https://github.com/OpenExecProtocol/Specification/blob/main/specification/http/1.0/openapi.json',
    'otc://1.0',
  ];
  const REFUSED = [
    'urn:oxp:2.0',
    'urn:oxp:1',
    'https://example.com/openapi.json',
    'https://github.com/OpenToolCalling/Specification/tree/main/spec/http/2.0/openapi.json',
    42,
    null,
  ];

  it('accepts absent, urn:oxp:1.x and the long spec URIs, and always answers urn:oxp:1.0', async () => {
    for (const $schema of ACCEPTED) {
      const reply = await client.call('Fx.add', { a: 1, b: 2 }, {}, $schema === undefined ? {} : { $schema });
      assert.equal(reply.status, 200, String($schema));
      assert.equal(reply.body.$schema, 'urn:oxp:1.0');
    }
  });

  it('refuses any other $schema with a 400 ServerErrorResponse, on /tools/call and on a GET /tools body', async () => {
    for (const $schema of REFUSED) {
      const reply = await client.call('Fx.add', { a: 1, b: 2 }, {}, { $schema });
      assert.equal(reply.status, 400, String($schema));
      assert.equal(reply.body.message, 'This tool server supports OXP 1.0 only.');
    }
    const get = (body: string) =>
      new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
        const req = httpRequest(
          `${server.url}/tools`,
          { method: 'GET', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
          (res) => {
            let text = '';
            res
              .setEncoding('utf8')
              .on('data', (d: string) => (text += d))
              .on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) as Record<string, unknown> }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const refused = await get(JSON.stringify({ $schema: 'urn:oxp:2.0' }));
    assert.equal(refused.status, 400);
    assertOxpSchema('ServerErrorResponse', refused.body);
    for (const body of [JSON.stringify({ $schema: 'urn:oxp:1.0' }), 'not json at all', '']) {
      const ok = await get(body);
      assert.equal(ok.status, 200, body);
      assertOxpSchema('ListToolsResponse', ok.body);
    }
  });

  it('accepts `inputs` (the docs spelling), prefers `input` when both are sent, and ignores extra fields', async () => {
    const viaInputs = await client.raw('/tools/call', { method: 'POST', body: JSON.stringify({ request: { tool_id: 'Fx.add', inputs: { a: 1, b: 1 } } }) });
    assert.deepEqual((viaInputs.body.result as Record<string, unknown>).value, { sum: 2 });
    const both = await client.call('Fx.add', { a: 5, b: 5 }, { inputs: { a: 1, b: 1 }, extra_field: true }, { $schema: 'urn:oxp:1.0', also_extra: 1 });
    assert.deepEqual((both.body.result as Record<string, unknown>).value, { sum: 10 });
  });

  it('accepts a CallToolRequest without its `request` wrapper, and the /call alias', async () => {
    const bare = await client.raw('/tools/call', { method: 'POST', body: JSON.stringify({ tool_id: 'Fx.add', input: { a: 2, b: 2 }, call_id: 'bare' }) });
    assert.deepEqual(bare.body.result, { call_id: 'bare', duration: (bare.body.result as Record<string, unknown>).duration, success: true, value: { sum: 4 } });
    const alias = await client.raw('/call', { method: 'POST', body: JSON.stringify({ request: { tool_id: 'Fx.add', input: { a: 3, b: 3 } } }) });
    assert.equal(alias.status, 200);
    assertReplyShape(alias);
  });

  it('generates a UUID call_id when the client sends none, and passes the call_id and trace_id to the MCP server in _meta', async () => {
    const result = (await client.call('Fx.add', { a: 1, b: 2 })).body.result as Record<string, unknown>;
    assert.match(String(result.call_id), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await client.call('Fx.add', { a: 1, b: 2 }, { call_id: 'c-1', trace_id: 't-1' });
    assert.deepEqual(fixture.catalog.calls.at(-1)!.meta?.['mcp-oxp-bridge/oxp-call'], { call_id: 'c-1', trace_id: 't-1' });
  });

  it('answers malformed requests with 400 ServerErrorResponse (or 422 for a non-object input), never a stack trace', async () => {
    const cases: [string, number][] = [
      ['{not json', 400],
      ['[]', 400],
      ['"a string"', 400],
      [JSON.stringify({ request: {} }), 400],
      [JSON.stringify({ request: { tool_id: 7 } }), 400],
      [JSON.stringify({ request: { tool_id: 'no-dot' } }), 400],
      [JSON.stringify({ request: { tool_id: 'A.b.c' } }), 400],
      [JSON.stringify({ request: { tool_id: 'Fx.add@1.0' } }), 400],
      [JSON.stringify({ request: { tool_id: 'Fx.add', input: [1, 2] } }), 422],
      [JSON.stringify({ request: { tool_id: 'Fx.add', input: 'a=1' } }), 422],
    ];
    for (const [body, status] of cases) {
      const reply = await client.raw('/tools/call', { method: 'POST', body });
      assert.equal(reply.status, status, body);
      assertReplyShape(reply);
      assert.doesNotMatch(JSON.stringify(reply.body), /at .*\.ts:\d+/);
    }
    const notFound = await client.raw('/nope');
    assert.equal(notFound.status, 404);
  });

  it('serves its routes in any case, with a trailing slash and for HEAD; an empty call body is a 400, a compressed one a 415', async () => {
    const spelled = await client.raw('/Tools/?page=1');
    assert.equal(spelled.status, 200);
    assertOxpSchema('ListToolsResponse', spelled.body);
    const head = await fetch(`${server.url}/tools`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.match(head.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(await head.text(), '');
    const empty = await client.raw('/tools/call', { method: 'POST', body: '' });
    assert.equal(empty.status, 400);
    assertReplyShape(empty);
    assert.match(String(empty.body.message), /"request" member/);
    const gzipped = await client.raw('/tools/call', {
      method: 'POST',
      body: JSON.stringify({ request: { tool_id: 'Fx.add', input: { a: 1, b: 2 } } }),
      headers: { 'content-encoding': 'gzip' },
    });
    assert.equal(gzipped.status, 415);
    assert.equal(gzipped.body.$schema, 'urn:oxp:1.0');
    assert.match(String(gzipped.body.message), /Content-Encoding gzip is not supported/);
  });
});

describe('oxp-server: tool version resolution (call-tool page)', () => {
  const fixtures: McpHttpFixture[] = [];
  let server: TestOxpServer;
  let client: OxpClient;
  const VERSIONS = ['1.0.0', '1.10.0', '2.0.0', '1.9.0'];

  before(async () => {
    // One toolkit, four upstreams, four versions: configured in a file (also the config-file form of the upstream list).
    const upstreams = [];
    for (const version of VERSIONS) {
      const f = await startMcpHttpFixture({ name: `calc-${version}` });
      fixtures.push(f);
      upstreams.push({ toolkit: 'Calc', url: f.url, version });
    }
    server = await startTestOxpServer(['--config', writeConfigFile({ oxpServer: { upstreams } })]);
    client = server.client;
  });
  after(async () => {
    await server?.close();
    for (const f of fixtures) await f.close();
  });

  it('lists every version of the tool under one name', async () => {
    const adds = (await client.list()).filter((t) => String(t.id).startsWith('Calc.add@'));
    assert.deepEqual(adds.map((t) => t.version).sort(), [...VERSIONS].sort());
    assert.deepEqual(new Set(adds.map((t) => t.name)), new Set(['add']));
  });

  it('@x.y.z is exact, @x is x.0.0 (not the latest x.*), no version is the latest by numeric semver', async () => {
    const expectations: [string, string][] = [
      ['Calc.which_era@1.9.0', '1.9.0'],
      ['Calc.which_era@1.10.0', '1.10.0'],
      ['Calc.which_era@1', '1.0.0'],
      ['Calc.which_era@2', '2.0.0'],
      ['Calc.which_era', '2.0.0'],
    ];
    for (const [toolId, version] of expectations) {
      const counts = fixtures.map((f) => f.catalog.calls.length);
      const reply = await client.call(toolId, {});
      assert.equal(reply.status, 200, toolId);
      const ran = fixtures.findIndex((f, i) => f.catalog.calls.length > counts[i]!);
      assert.equal(VERSIONS[ran], version, toolId);
    }
  });

  it('an unavailable version is a 400', async () => {
    for (const toolId of ['Calc.which_era@3', 'Calc.which_era@1.2.0', 'Calc.which_era@0']) {
      const reply = await client.call(toolId, {});
      assert.equal(reply.status, 400, toolId);
      assert.equal(reply.body.message, `Tool '${toolId}' was not found`);
      assert.match(String(reply.body.developer_message), /has no version matching/);
    }
  });
});

describe('oxp-server: ids stay unique across upstreams', () => {
  it('two servers with the same name and version (derived toolkit) get distinct ids, and each call reaches its own server', async () => {
    const a = await startMcpHttpFixture({ name: 'twin-server', version: '1.0.0' });
    const b = await startMcpHttpFixture({ name: 'twin-server', version: '1.0.0' });
    const server = await startTestOxpServer(['--mcp-url', a.url, '--mcp-url', b.url]);
    try {
      const ids = (await server.client.list()).map((t) => String(t.id));
      assert.equal(new Set(ids).size, ids.length);
      assert.ok(ids.includes('Twin.add@1.0.0'));
      // The second server's derived toolkit is numbered, so no id needs a hash.
      const second = 'Twin_2.add@1.0.0';
      assert.ok(ids.includes(second), ids.join(', '));
      await server.client.result('Twin.add', { a: 1, b: 1 });
      await server.client.result(second, { a: 2, b: 2 });
      assert.deepEqual(
        a.catalog.calls.map((c) => c.args),
        [{ a: 1, b: 1 }],
      );
      assert.deepEqual(
        b.catalog.calls.map((c) => c.args),
        [{ a: 2, b: 2 }],
      );
    } finally {
      await server.close();
      await a.close();
      await b.close();
    }
  });
});
