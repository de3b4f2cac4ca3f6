import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { McpCallToolResult, McpTool } from './mcp-wire.js';
import { ERROR_META_KEY, TOOL_META_KEY } from './mcp-wire.js';
import {
  buildOxpCatalog,
  semverCore,
  toOxpReply,
  toolkitFromServerName,
  unwrapResultSchema,
  valueFrom,
  type OxpToolEntry,
  type UpstreamListing,
} from './mcp-to-oxp.js';
import { toMcpCallReply } from './oxp-to-mcp.js';
import { buildCatalog } from './catalog.js';
import { wrapOutputSchema } from './project.js';

const ID_RE = /^[A-Za-z0-9_]+\.[A-Za-z0-9_]+(@([0-9]+|[0-9]+\.[0-9]+\.[0-9]+))?$/;
const NAME_RE = /^[A-Za-z0-9_-]{1,64}$/;
const tool = (name: string, extra: Partial<McpTool> = {}): McpTool => ({ name, inputSchema: { type: 'object', properties: {} }, ...extra });
const listing = (upstream: number, tools: McpTool[], extra: Partial<UpstreamListing> = {}): UpstreamListing => ({ upstream, tools, ...extra });

describe('buildOxpCatalog ids and names', () => {
  it('gives every MCP name a grammar-valid, unique id and name, stable under listing order', () => {
    const names = ['add', 'echo-text', 'split.words', 'count/words', 'größe', '工具', `long_${'x'.repeat(195)}`, 'a_b', 'a-b', 'a.b', ''];
    const a = buildOxpCatalog([
      listing(
        0,
        names.map((n) => tool(n)),
        { toolkit: 'Kit' },
      ),
    ]);
    const b = buildOxpCatalog([
      listing(
        0,
        [...names].reverse().map((n) => tool(n)),
        { toolkit: 'Kit' },
      ),
    ]);
    assert.deepEqual(
      a.map((e) => [e.mcpName, e.definition.id, e.definition.name]),
      b.map((e) => [e.mcpName, e.definition.id, e.definition.name]),
    );
    for (const e of a) {
      assert.match(String(e.definition.id), ID_RE, e.mcpName);
      assert.match(String(e.definition.name), NAME_RE, e.mcpName);
      assert.ok(String(e.definition.id).split('@')[0]!.split('.')[1]!.length <= 64);
    }
    assert.equal(new Set(a.map((e) => e.definition.id)).size, names.length);
    assert.equal(new Set(a.map((e) => e.definition.name)).size, names.length);
    // Names are kept where OXP allows them; a hash only where two tools would meet, the exact name keeping the plain form.
    const byMcp = new Map(a.map((e) => [e.mcpName, e]));
    assert.equal(byMcp.get('add')!.key, 'Kit.add');
    assert.equal(byMcp.get('a_b')!.key, 'Kit.a_b');
    assert.match(byMcp.get('a-b')!.key, /^Kit\.a_b_[0-9a-f]{8}$/);
    assert.notEqual(byMcp.get('a-b')!.key, byMcp.get('a.b')!.key);
    assert.equal(byMcp.get('add')!.definition.name, 'add');
    assert.equal(byMcp.get('a-b')!.definition.name, 'a-b', 'a hyphenated name is a valid OXP name');
    assert.equal(byMcp.get('echo-text')!.key, 'Kit.echo_text', 'no hash without a collision');
    assert.equal(byMcp.get('echo-text')!.definition.name, 'echo-text');
    assert.equal(byMcp.get('split.words')!.key, 'Kit.split_words');
    assert.equal(byMcp.get('split.words')!.definition.name, 'split_words');
  });

  it('hashes only on a collision: the name needing no replacement keeps the plain id, whatever the listing order', () => {
    for (const order of [
      ['get-sum', 'get_sum'],
      ['get_sum', 'get-sum'],
    ]) {
      const c = buildOxpCatalog([
        listing(
          0,
          order.map((n) => tool(n)),
          { toolkit: 'K' },
        ),
      ]);
      const byMcp = new Map(c.map((e) => [e.mcpName, e]));
      assert.equal(byMcp.get('get_sum')!.key, 'K.get_sum');
      assert.match(byMcp.get('get-sum')!.key, /^K\.get_sum_[0-9a-f]{8}$/);
      assert.equal(byMcp.get('get-sum')!.definition.name, 'get-sum');
    }
  });

  it('prefixes a name another toolkit already holds with its toolkit', () => {
    const c = buildOxpCatalog([
      listing(0, [tool('echo')], { serverName: 'mcp-servers/everything' }),
      listing(1, [tool('echo')], { serverName: 'other-server' }),
    ]);
    assert.deepEqual(
      c.map((e) => [e.definition.id, e.definition.name]),
      [
        ['Everything.echo@1.0.0', 'echo'],
        ['Other.echo@1.0.0', 'Other_echo'],
      ],
    );
  });

  it('applies allow, deny, rename and descriptions (globs over MCP names); a tool that requires tasks only from a server that takes them', () => {
    const tools = [
      tool('read-file'),
      tool('write-file'),
      tool('delete-file'),
      tool('list'),
      tool('research', { execution: { taskSupport: 'required' } }),
      tool('maybe', { execution: { taskSupport: 'optional' } }),
    ];
    const c = buildOxpCatalog([
      listing(0, tools, {
        toolkit: 'Fs',
        policy: { allow: ['*-file', 'list', 'research', 'maybe'], deny: ['delete-*'], rename: { 'read-file': 'cat' }, descriptions: { list: 'Lists.' } },
      }),
    ]);
    assert.deepEqual(c.map((e) => [e.mcpName, e.key, e.definition.name]).sort(), [
      ['list', 'Fs.list', 'list'],
      ['maybe', 'Fs.maybe', 'maybe'],
      ['read-file', 'Fs.cat', 'cat'],
      ['write-file', 'Fs.write_file', 'write-file'],
    ]);
    assert.equal(c.find((e) => e.mcpName === 'list')!.definition.description, 'Lists.');
    // The server declares task-augmented tools/call: the required tool is published and called as a task, the optional one plainly.
    const withTasks = buildOxpCatalog([listing(0, tools, { toolkit: 'Fs', toolTasks: true, policy: { allow: ['research', 'maybe'] } })]);
    assert.deepEqual(withTasks.map((e) => [e.mcpName, e.key, e.asTask]).sort(), [
      ['maybe', 'Fs.maybe', false],
      ['research', 'Fs.research', true],
    ]);
  });

  it('carries MCP title and annotations in input_schema["x-mcp"] (ToolDefinition itself is closed), only the known members', () => {
    const [e] = buildOxpCatalog([
      listing(0, [tool('t', { title: 'The T', annotations: { readOnlyHint: true, destructiveHint: 'yes' as never, openWorldHint: false, extra: 1 } })], {
        toolkit: 'K',
      }),
    ]);
    assert.deepEqual(e!.definition.input_schema, {
      type: 'object',
      properties: {},
      'x-mcp': { title: 'The T', annotations: { readOnlyHint: true, openWorldHint: false } },
    });
    assert.deepEqual(e!.inputSchema, { type: 'object', properties: {} }, 'validation uses the MCP schema');
  });

  it('keeps ids unique across upstreams that share a toolkit and version, earlier upstreams keeping the plain id', () => {
    const c = buildOxpCatalog([
      listing(1, [tool('search')], { toolkit: 'Web', version: '1.0.0' }),
      listing(0, [tool('search')], { toolkit: 'Web', version: '1.0.0' }),
    ]);
    const first = c.find((e) => e.upstream === 0)!;
    const second = c.find((e) => e.upstream === 1)!;
    assert.equal(first.definition.id, 'Web.search@1.0.0');
    assert.match(String(second.definition.id), /^Web\.search_[0-9a-f]{8}@1\.0\.0$/);
  });

  it('offers two versions of one id when two upstreams share a toolkit with different versions, under one name', () => {
    const c = buildOxpCatalog([
      listing(0, [tool('add')], { toolkit: 'Calc', version: '1.0.0' }),
      listing(1, [tool('add')], { toolkit: 'Calc', version: '2.0.0' }),
    ]);
    assert.deepEqual(
      c.map((e) => e.definition.id),
      ['Calc.add@1.0.0', 'Calc.add@2.0.0'],
    );
    assert.deepEqual(
      c.map((e) => e.definition.name),
      ['add', 'add'],
    );
  });

  it("chooses versions: per tool, per upstream, the tool's bridge metadata, the server's semver, else 1.0.0", () => {
    const meta = { _meta: { [TOOL_META_KEY]: { id: 'X.y', version: '3.1.4' } } };
    const versions = (l: Partial<UpstreamListing>, t: McpTool = tool('t')) => buildOxpCatalog([listing(0, [t], { toolkit: 'K', ...l })])[0]!.version;
    assert.equal(versions({ perTool: { t: { version: '9.9.9' } }, version: '1.2.3' }), '9.9.9');
    assert.equal(versions({ version: '1.2.3', serverVersion: '5.0.0' }, tool('t', meta)), '1.2.3');
    assert.equal(versions({ serverVersion: '5.0.0' }, tool('t', meta)), '3.1.4');
    assert.equal(versions({ serverVersion: '5.0.0-rc.1+build' }), '5.0.0');
    assert.equal(versions({ serverVersion: 'latest' }), '1.0.0');
    assert.equal(semverCore('v2'), undefined);
  });

  it('derives the toolkit from the server name when none is configured', () => {
    assert.equal(toolkitFromServerName('mcp-servers/everything'), 'Everything');
    assert.equal(toolkitFromServerName('memory-server'), 'Memory');
    assert.equal(toolkitFromServerName('secure-filesystem-server'), 'SecureFilesystem');
    assert.equal(toolkitFromServerName('my-server.v2'), 'MyV2');
    assert.equal(toolkitFromServerName('---'), 'Mcp');
    assert.equal(toolkitFromServerName('mcp_server'), 'mcp_server');
    assert.equal(toolkitFromServerName(undefined), 'Mcp');
    assert.equal(buildOxpCatalog([listing(0, [tool('t')], { serverName: 'weather' })])[0]!.key, 'Weather.t');
    // Two upstreams deriving one toolkit: the later one is numbered, so their ids never meet.
    assert.deepEqual(
      buildOxpCatalog([listing(0, [tool('t')], { serverName: 'weather' }), listing(1, [tool('t')], { serverName: 'weather' })]).map((e) => e.key),
      ['Weather.t', 'Weather_2.t'],
    );
  });

  it('writes spec ToolDefinitions: a description always, output_schema only when declared, requirements from configuration', () => {
    const requirements = { secrets: [{ id: 'API_KEY' }] };
    const [plain, described, per] = buildOxpCatalog([
      listing(0, [tool('a_plain', { title: 'Plain' }), tool('b_described', { description: 'Does b.', outputSchema: { type: 'object' } }), tool('c_per')], {
        toolkit: 'K',
        version: '1.0.0',
        requirements,
        perTool: { c_per: { requirements: { user_id: true } } },
      }),
    ]);
    assert.deepEqual(plain!.definition, {
      id: 'K.a_plain@1.0.0',
      name: 'a_plain',
      description: 'Plain (MCP tool "a_plain" of K)',
      version: '1.0.0',
      input_schema: { type: 'object', properties: {}, 'x-mcp': { title: 'Plain' } },
      requirements,
    });
    assert.deepEqual(described!.definition.output_schema, { type: 'object' });
    assert.equal(described!.definition.description, 'Does b.');
    assert.deepEqual(per!.definition.requirements, { user_id: true });
  });
});

describe('output schemas', () => {
  it('unwraps exactly the {result} wrapper of a non-object output', () => {
    assert.deepEqual(unwrapResultSchema(wrapOutputSchema({ type: 'array', items: { type: 'string' } })), { type: 'array', items: { type: 'string' } });
    assert.deepEqual(
      unwrapResultSchema({ ...wrapOutputSchema({ type: 'number' }), $schema: 'https://json-schema.org/draft/2020-12/schema', additionalProperties: false }),
      { type: 'number' },
    );
    assert.equal(unwrapResultSchema(wrapOutputSchema({ type: 'object' })), undefined, 'an object result was never wrapped');
    assert.equal(unwrapResultSchema({ type: 'object', properties: { result: { type: 'number' }, other: {} }, required: ['result'] }), undefined);
    assert.equal(unwrapResultSchema({ type: 'object', properties: { result: { type: 'number' } } }), undefined, 'result not required');
    const [entry] = buildOxpCatalog([listing(0, [tool('t', { outputSchema: wrapOutputSchema({ type: 'number' }) })], { toolkit: 'K' })]);
    assert.deepEqual(entry!.definition.output_schema, { type: 'number' });
    assert.equal(entry!.wrapped, true);
  });
});

describe('results', () => {
  const entry = (outputSchema?: McpTool['outputSchema'], wrapped = false) => ({ wrapped, ...(outputSchema ? { outputSchema } : {}) });
  const text = (t: string) => ({ type: 'text', text: t });

  it('maps every success shape to a value', () => {
    assert.deepEqual(valueFrom({ content: [text('{"sum":3}')], structuredContent: { sum: 3 } }, entry({ type: 'object' })), { sum: 3 });
    assert.deepEqual(valueFrom({ content: [], structuredContent: { result: [1, 2] } }, entry({ type: 'array' }, true)), [1, 2]);
    assert.deepEqual(valueFrom({ content: [], structuredContent: [1, 2] }, entry({ type: 'array' })), [1, 2]);
    assert.equal(valueFrom({ content: [text('42')] }, entry()), '42', 'no output schema: the text as is');
    assert.equal(valueFrom({ content: [text('42')] }, entry({ type: 'string' })), '42');
    assert.equal(valueFrom({ content: [text('42')] }, entry({ type: 'integer' })), 42);
    assert.equal(valueFrom({ content: [text('not json')] }, entry({ type: 'integer' })), 'not json');
    assert.equal(valueFrom({ content: [] }, entry()), null);
    const image = { type: 'image', data: 'AA==', mimeType: 'image/png' };
    const imagePart = { contentEncoding: 'base64', contentMediaType: 'image/png', data: 'AA==' };
    assert.deepEqual(valueFrom({ content: [text('a'), image] }, entry()), ['a', imagePart]);
    assert.deepEqual(valueFrom({ content: [image] }, entry()), imagePart, 'one part alone');
    assert.deepEqual(valueFrom({ content: [text('a'), text('b')] }, entry()), ['a', 'b']);
    const link = { type: 'resource_link', uri: 'demo://r/1', name: 'R1', mimeType: 'text/plain', description: 'd' };
    assert.deepEqual(valueFrom({ content: [link] }, entry()), { uri: 'demo://r/1', name: 'R1', description: 'd', contentMediaType: 'text/plain' });
    const embedded = { type: 'resource', resource: { uri: 'demo://r/2', text: 'x' } };
    assert.deepEqual(
      valueFrom({ content: [image, embedded] }, entry()),
      [imagePart, { uri: 'demo://r/2', text: 'x' }],
      'an embedded resource is readable, and does not turn its neighbours into MCP blocks',
    );
    assert.deepEqual(valueFrom({ content: [embedded] }, entry({ type: 'object' })), { uri: 'demo://r/2', text: 'x' }, 'one part alone, output schema or not');
    const annotated = { type: 'text', text: 'for you', annotations: { audience: ['user'] } };
    assert.equal(valueFrom({ content: [annotated] }, entry()), 'for you', 'a lone text is the value, annotations or not');
    assert.deepEqual(valueFrom({ content: [annotated, text('b')] }, entry()), [
      { text: 'for you', 'x-mcp': { type: 'text', annotations: { audience: ['user'] } } },
      'b',
    ]);
    assert.deepEqual(
      valueFrom({ content: [link, embedded], structuredContent: { n: 1 } }, entry({ type: 'object' })),
      { n: 1 },
      'structuredContent wins: the blocks are not carried',
    );
  });

  it('maps isError to a ToolError, recovering retry hints an MCP face of this bridge put in _meta', () => {
    const error = { message: 'Doorbell ID not found', canRetry: true, retryAfterMs: 500, additionalPromptContent: 'ids: doorbell42' };
    const oxpEntry = buildCatalog([{ key: 'Doorbell.Ring', version: '0.1.0', inputSchema: { type: 'object' } }]).entries[0]!;
    const mcp = toMcpCallReply({ kind: 'tool_error', error }, oxpEntry);
    assert.ok('result' in mcp);
    const [back] = [toOxpReply({ kind: 'result', result: mcp.result }, {} as OxpToolEntry).reply];
    assert.deepEqual(back, { error: { message: 'Doorbell ID not found', can_retry: true, retry_after_ms: 500, additional_prompt_content: 'ids: doorbell42' } });
    const plain: McpCallToolResult = { content: [text('first'), text('second')], isError: true };
    assert.deepEqual(toOxpReply({ kind: 'result', result: plain }, {} as OxpToolEntry).reply, { error: { message: 'first\nsecond' } });
    const unavailable: McpCallToolResult = {
      content: [text('down')],
      isError: true,
      _meta: { [ERROR_META_KEY]: { kind: 'upstream_unavailable', can_retry: true, retry_after_ms: 2000 } },
    };
    assert.deepEqual(toOxpReply({ kind: 'result', result: unavailable }, {} as OxpToolEntry).reply, {
      error: { message: 'down', can_retry: true, retry_after_ms: 2000 },
    });
    assert.deepEqual(toOxpReply({ kind: 'result', result: { content: [], isError: true } }, {} as OxpToolEntry).reply, {
      error: { message: 'The tool reported an error.' },
    });
  });
});

describe('call failures', () => {
  const entry = buildOxpCatalog([listing(0, [tool('t')], { toolkit: 'K' })])[0]!;
  const reply = (outcome: Parameters<typeof toOxpReply>[0]) => toOxpReply(outcome, entry);

  it('turns URL elicitations (-32042, input_required) into authorization challenges', () => {
    const url = 'https://auth.example/x';
    assert.deepEqual(
      reply({ kind: 'rpc_error', code: -32042, message: 'need auth', data: { elicitations: [{ mode: 'url', elicitationId: 'gh', url, message: 'm' }] } }).reply,
      {
        refused: {
          message: 'The tool needs your authorization before it can run. Open the link, then call the tool again.',
          missing_requirements: { authorization: [{ id: 'gh', url }] },
        },
      },
    );
    const modern = reply({
      kind: 'input_required',
      inputRequests: { login: { method: 'elicitation/create', params: { mode: 'url', url, message: 'm' } } },
    }).reply;
    assert.deepEqual('refused' in modern && modern.refused.missing_requirements, { authorization: [{ id: 'login', url }] });
    const form = reply({
      kind: 'input_required',
      inputRequests: { ask: { method: 'elicitation/create', params: { message: 'm', requestedSchema: {} } } },
    }).reply;
    assert.ok('refused' in form && !form.refused.missing_requirements && /interactive input/.test(form.refused.message));
  });

  it('maps JSON-RPC errors: -32602 unknown tool → 400 (and a refresh), other -32602 → 422, -32603 → tool error, others → 400', () => {
    const gone = reply({ kind: 'rpc_error', code: -32602, message: 'Unknown tool: t' });
    assert.equal(gone.toolGone, true);
    assert.deepEqual(gone.reply, {
      refused: { message: "Tool 'K.t' was not found", developer_message: 'MCP error -32602 from tools/call "t": Unknown tool: t' },
    });
    assert.deepEqual(reply({ kind: 'rpc_error', code: -32602, message: 'b must be a number' }).reply, {
      invalid: { message: 'The tool rejected its input: b must be a number' },
    });
    const internal = reply({ kind: 'rpc_error', code: -32603, message: 'stack trace here' }).reply;
    assert.ok('error' in internal && internal.error.message === 'The tool failed unexpectedly.' && /stack trace/.test(internal.error.developer_message!));
    const other = reply({ kind: 'rpc_error', code: -32601, message: 'Method not found' }).reply;
    assert.ok('refused' in other && other.refused.message === 'The tool server refused the call.');
  });

  it('maps -32021 (a 2026-07-28 server needs a capability the client lacks): the tasks extension said by name', () => {
    const data = { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } };
    const tasks = reply({ kind: 'rpc_error', code: -32021, message: 'Missing required client capability', data }).reply;
    assert.ok('refused' in tasks && /only as an MCP task \(the 2026-07-28 tasks extension\)/.test(tasks.refused.message), JSON.stringify(tasks));
    assert.match(tasks.refused.developer_message!, /MCP error -32021/);
    const sampling = reply({ kind: 'rpc_error', code: -32021, message: 'Missing', data: { requiredCapabilities: { sampling: {} } } }).reply;
    assert.ok('refused' in sampling && /requires a client capability the OXP gateway does not have/.test(sampling.refused.message));
  });

  it('maps a task that ended without a usable result to a tool error, retryable when said so', () => {
    assert.deepEqual(
      reply({ kind: 'no_result', message: 'The tool server cancelled the call before it finished.', detail: 'MCP task t: stop', canRetry: true }).reply,
      {
        error: { message: 'The tool server cancelled the call before it finished.', developer_message: 'MCP task t: stop', can_retry: true },
      },
    );
  });

  it('keeps transport detail in developer_message only', () => {
    const down = reply({ kind: 'unreachable', detail: 'fetch failed (ECONNREFUSED connect ECONNREFUSED 127.0.0.1:1)' }).reply;
    assert.ok('refused' in down);
    assert.doesNotMatch(down.refused.message, /ECONNREFUSED/);
    assert.match(down.refused.developer_message!, /ECONNREFUSED/);
    assert.deepEqual(reply({ kind: 'timeout' }).reply, { error: { message: 'The tool did not finish in time.', can_retry: true } });
  });
});

describe('toOxpReply bounds', () => {
  it('a result nested beyond the bound is a clear tool error (nothing serialises it)', () => {
    const entry = buildOxpCatalog([listing(0, [tool('echo')], { toolkit: 'Kit' })])[0]!;
    const deep = JSON.parse(`${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`) as McpCallToolResult['structuredContent'];
    const { reply } = toOxpReply({ kind: 'result', result: { content: [{ type: 'text', text: 'deep' }], structuredContent: deep } }, entry);
    assert.ok('error' in reply);
    assert.match(reply.error.message, /nested more than 100 levels deep/);
    const fine = JSON.parse(`${'{"a":'.repeat(99)}1${'}'.repeat(99)}`) as McpCallToolResult['structuredContent'];
    assert.ok('value' in toOxpReply({ kind: 'result', result: { content: [], structuredContent: fine } }, entry).reply);
  });
});
