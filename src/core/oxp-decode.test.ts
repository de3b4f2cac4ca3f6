import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeCallResponse, decodeToolDefinition, decodeToolList, normaliseRetryAfterMs, retryAfterFromHeaders } from './oxp-decode.js';

const json = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

describe('decodeToolList', () => {
  const def = { id: 'Calculator.Add@1.0.0', name: 'Calculator_Add', description: 'adds', version: '1.0.0', input_schema: { type: 'object' } };
  it('accepts items, tools and a bare array', () => {
    for (const body of [{ items: [def] }, { tools: [def] }, [def]]) assert.equal(decodeToolList(body, 10).tools.length, 1);
  });
  it('treats an unrecognised body as empty, with a warning', () => {
    const out = decodeToolList({}, 10);
    assert.deepEqual(out.tools, []);
    assert.match(out.warnings[0]!, /no "items"/);
  });
  it('bounds the list and reports what it dropped', () => {
    const out = decodeToolList(
      Array.from({ length: 5 }, (_, i) => ({ ...def, id: `T.t${i}` })),
      3,
    );
    assert.equal(out.tools.length, 3);
    assert.match(out.warnings[0]!, /only the first 3/);
  });
  it('skips unusable entries and keeps the rest', () => {
    const out = decodeToolList([def, 42, { description: 'no id' }, { id: 'X.y', input_schema: { type: 'string' } }], 10);
    assert.equal(out.tools.length, 1);
    assert.equal(out.warnings.length, 3);
  });
});

describe('decodeToolDefinition', () => {
  it('unwraps {parameters} and keeps 2020-12 keywords verbatim', () => {
    const schema = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', $defs: { a: { type: 'string' } }, additionalProperties: false };
    const tool = decodeToolDefinition({ id: 'A.b', input_schema: { parameters: schema } });
    assert.ok(typeof tool !== 'string');
    assert.deepEqual(tool.inputSchema, schema);
  });
  it('defaults a missing input schema and adds a missing root type', () => {
    const a = decodeToolDefinition({ id: 'A.b' });
    const b = decodeToolDefinition({ id: 'A.c', input_schema: { properties: { x: { type: 'string' } } } });
    assert.ok(typeof a !== 'string' && typeof b !== 'string');
    assert.deepEqual(a.inputSchema, { type: 'object', properties: {} });
    assert.equal(b.inputSchema.type, 'object');
  });
  it('takes the version from the field, else from the id (x → x.0.0)', () => {
    const t1 = decodeToolDefinition({ id: 'A.b@1.2.3' });
    const t2 = decodeToolDefinition({ id: 'echo@2' });
    const t3 = decodeToolDefinition({ id: 'A.b', version: '3.0.0' });
    assert.ok(typeof t1 !== 'string' && typeof t2 !== 'string' && typeof t3 !== 'string');
    assert.deepEqual([t1.key, t1.version, t2.key, t2.version, t3.version], ['A.b', '1.2.3', 'echo', '2.0.0', '3.0.0']);
  });
  it('null output schema means no output; {} means any', () => {
    const none = decodeToolDefinition({ id: 'A.b', output_schema: null });
    const any = decodeToolDefinition({ id: 'A.c', output_schema: {} });
    assert.ok(typeof none !== 'string' && typeof any !== 'string');
    assert.equal(none.outputSchema, undefined);
    assert.deepEqual(any.outputSchema, {});
  });
});

describe('decodeToolDefinition bounds', () => {
  const deep = (n: number): unknown => JSON.parse(`${'{"a":'.repeat(n)}1${'}'.repeat(n)}`);
  it('skips a tool whose input or output schema nests too deep or holds too many values, naming it', () => {
    const base = { id: 'Hostile.deep@1.0.0', name: 'deep', description: 'd', version: '1.0.0' };
    assert.match(
      String(decodeToolDefinition({ ...base, input_schema: { type: 'object', properties: { x: deep(5_000) } } })),
      /^Hostile\.deep@1\.0\.0: input_schema nests deeper than 64 levels$/,
    );
    assert.match(String(decodeToolDefinition({ ...base, output_schema: deep(65) })), /output_schema nests deeper than 64/);
    const wide = Object.fromEntries(Array.from({ length: 10_001 }, (_, i) => [`p${i}`, { type: 'string' }]));
    assert.match(String(decodeToolDefinition({ ...base, input_schema: { type: 'object', properties: wide } })), /input_schema has more than 20000 values/);
    assert.equal(typeof decodeToolDefinition({ ...base, input_schema: { type: 'object', properties: { x: deep(60) } } }), 'object');
  });
  it('a deep tool is one warning; the rest of the list decodes', () => {
    const out = decodeToolList(
      [
        { id: 'A.ok', input_schema: { type: 'object' } },
        { id: 'B.deep', input_schema: deep(5_000) },
      ],
      10,
    );
    assert.deepEqual(
      out.tools.map((t) => t.key),
      ['A.ok'],
    );
    assert.match(out.warnings[0]!, /B\.deep: input_schema nests deeper/);
  });
});

describe('decodeCallResponse', () => {
  it('reads the spec wrapper, flat bodies and execution_id', () => {
    assert.deepEqual(decodeCallResponse(json(200, { $schema: 'urn:oxp:1.0', result: { call_id: 'c', success: true, value: 15, duration: 2 } })), {
      kind: 'success',
      value: 15,
      callId: 'c',
      durationMs: 2,
    });
    assert.deepEqual(decodeCallResponse(json(200, { success: true, execution_id: 'e', value: [1] })), { kind: 'success', value: [1], callId: 'e' });
  });
  it('absent value is null; missing success with value is success', () => {
    assert.deepEqual(decodeCallResponse(json(200, { result: { call_id: 'c', success: true } })), { kind: 'success', value: null, callId: 'c' });
    assert.equal(decodeCallResponse(json(200, { result: { value: 1 } })).kind, 'success');
  });
  it('an error present means failure even with success:true', () => {
    const out = decodeCallResponse(json(200, { result: { success: true, error: { message: 'boom' } } }));
    assert.equal(out.kind, 'tool_error');
  });
  it('keeps retry hints, normalised, and developer_message apart', () => {
    const out = decodeCallResponse(
      json(200, {
        result: {
          success: false,
          error: { message: 'm', developer_message: 'secret detail', can_retry: true, retry_after_ms: '1500.7', additional_prompt_content: 'try x' },
        },
      }),
    );
    assert.deepEqual(out, {
      kind: 'tool_error',
      error: { message: 'm', developerMessage: 'secret detail', canRetry: true, retryAfterMs: 1501, additionalPromptContent: 'try x' },
    });
  });
  it('422 parameter_errors as a map, with array values, or FastAPI detail', () => {
    const a = decodeCallResponse(json(422, { message: 'bad', parameter_errors: { b: 'Must be a number', c: ['x', 'y'] } }));
    const b = decodeCallResponse(json(422, { detail: [{ loc: ['body', 'request', 'input', 'count'], msg: 'field required', type: 'missing' }] }));
    assert.deepEqual(a, {
      kind: 'invalid_input',
      message: 'bad',
      parameterErrors: [
        { parameter: 'b', message: 'Must be a number' },
        { parameter: 'c', message: 'x; y' },
      ],
    });
    assert.deepEqual(b, {
      kind: 'invalid_input',
      message: 'Some input parameters are invalid.',
      parameterErrors: [{ parameter: 'count', message: 'field required' }],
    });
  });
  it('classifies 400 by cause', () => {
    assert.equal(decodeCallResponse(json(400, { message: "Tool 'X.y' was not found" })).kind, 'unknown_tool');
    assert.equal(decodeCallResponse(json(400, { message: 'Unsupported OXP version' })).kind, 'precondition_failed');
    assert.equal(decodeCallResponse(json(400, { detail: ['Invalid payload'] })).kind, 'invalid_input');
    const auth = decodeCallResponse(
      json(400, { message: 'auth', missing_requirements: { authorization: [{ id: 'google', url: 'https://a', check_url: 'https://c' }], user_id: true } }),
    );
    assert.deepEqual(auth, {
      kind: 'requirements_missing',
      message: 'auth',
      authorization: [{ id: 'google', url: 'https://a', checkUrl: 'https://c' }],
      userId: true,
      secrets: [],
    });
  });
  it('404/403 unknown tools, 401 auth, 5xx unavailable with Retry-After', () => {
    assert.equal(decodeCallResponse(json(404, { detail: 'Tool x not found' })).kind, 'unknown_tool');
    assert.equal(decodeCallResponse(json(403, { detail: 'Tool either does not exist or insufficient permissions' })).kind, 'unknown_tool');
    assert.equal(decodeCallResponse(json(401, { error: 'bad key' })).kind, 'auth_failed');
    assert.deepEqual(decodeCallResponse(json(503, 'busy', { 'retry-after': '2' })), { kind: 'unavailable', status: 503, detail: 'busy', retryAfterMs: 2000 });
    // A tool's exception as Python servers answer it: the tool's failure, not the server's.
    assert.deepEqual(decodeCallResponse({ status: 500, headers: { 'content-type': 'text/plain' }, body: 'Internal Server Error' }), {
      kind: 'tool_crashed',
      status: 500,
      detail: 'Internal Server Error',
    });
  });
  it('never passes an HTML page through', () => {
    const out = decodeCallResponse({
      status: 502,
      headers: { 'content-type': 'text/html' },
      body: '<html><head><title>502 Bad Gateway</title></head><body><script>x</script></body></html>',
    });
    assert.deepEqual(out, { kind: 'unavailable', status: 502, detail: '(HTML page "502 Bad Gateway", HTTP 502)' });
  });
  it('empty or truncated 200 bodies are protocol errors', () => {
    assert.equal(decodeCallResponse(json(200, '')).kind, 'protocol_error');
    assert.equal(decodeCallResponse(json(200, '{"result":{"success":tr')).kind, 'protocol_error');
  });
  it('a 200 that is no CallToolResponse ({"result":[…]}, {}, no success/value/error) is a protocol error, not an empty success', () => {
    for (const body of [{ result: [1, 2] }, { result: 'ok' }, {}, { result: { call_id: 'c' } }, { output: 1 }]) {
      assert.equal(decodeCallResponse(json(200, body)).kind, 'protocol_error', JSON.stringify(body));
    }
    // Each marker alone still makes a response (absent value = null).
    assert.deepEqual(decodeCallResponse(json(200, { result: { success: true, call_id: 'c' } })), { kind: 'success', value: null, callId: 'c' });
  });
  it('413 is a refusal the user can act on, not a protocol error', () => {
    const out = decodeCallResponse(json(413, { message: 'Payload Too Large' }));
    assert.equal(out.kind, 'precondition_failed');
    assert.match((out as { message: string }).message, /too large/);
  });
  it('a body nested beyond the result bound is refused before parsing; an error body keeps its status class', () => {
    const deep = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
    const out = decodeCallResponse(json(200, `{"result":{"success":true,"value":${deep(5_000)}}}`));
    assert.equal(out.kind, 'protocol_error');
    assert.match((out as { message?: string }).message ?? '', /nested more than 100 levels/);
    assert.equal(decodeCallResponse(json(200, `{"result":{"success":true,"value":${deep(100)}}}`)).kind, 'success');
    assert.equal(decodeCallResponse(json(503, `{"detail":[${deep(5_000)}]}`)).kind, 'unavailable');
    assert.equal(decodeCallResponse(json(422, `{"parameter_errors":{"a":${deep(5_000)}}}`)).kind, 'invalid_input');
  });
  it('treats an auth challenge disguised as a value as missing requirements', () => {
    const out = decodeCallResponse(json(200, { success: true, execution_id: 'e', value: { auth_required: true, auth_url: 'https://auth', auth_id: 'gh' } }));
    assert.equal(out.kind, 'requirements_missing');
  });
});

describe('retry-after normalisation', () => {
  it('clamps, rounds and parses', () => {
    assert.deepEqual([-5, 1.5, '500', 3_600_000, 'soon', null].map(normaliseRetryAfterMs), [0, 2, 500, 60_000, undefined, undefined]);
  });
  it('reads Retry-After-Ms, Retry-After seconds and dates', () => {
    assert.equal(retryAfterFromHeaders({ 'retry-after-ms': '250' }), 250);
    assert.equal(retryAfterFromHeaders({ 'retry-after': '3' }), 3000);
    assert.equal(retryAfterFromHeaders({ 'retry-after': new Date(10_000).toUTCString() }, 5_000), 5000);
  });
});
