/**
 * The OXP dialects real servers speak (list key `items`/`tools`/bare array ×
 * `input_schema` bare/`{parameters}` × call result wrapped/flat/
 * `execution_id`/success-less) are invisible to MCP clients: every
 * combination yields the same tools and the same results as the spec shape.
 * Also pins what the bridge writes upstream (strict writer): `$schema`,
 * `request.input`, a UUID v4 `call_id`, `tool_id` pinned to the listed
 * (latest) version, `trace_id` from the caller's `traceparent`, and GET
 * /tools without a body.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { McpRevision } from '../../src/core/mcp-versions.js';
import {
  startOxpFixture,
  type InputSchemaShape,
  type ListShape,
  type OxpFixtureServer,
  type RecordedRequest,
  type ResultShape,
} from '../fixtures/oxp-fixture-server.js';
import { integrationTools, startHttpBridge, type HttpBridge } from '../helpers/it-bridge.js';
import { connectHttp, spec, type ClientSpec, type McpSession } from '../helpers/it-clients.js';
import { expectDoorbellError, expectSuccess, expectToolsList, expectValidationError, OUTPUT_CASES } from '../helpers/it-expect.js';

const LIST_SHAPES: ListShape[] = ['items', 'tools', 'bare'];
const INPUT_SHAPES: InputSchemaShape[] = ['bare', 'parameters'];
const RESULT_SHAPES: ResultShape[] = ['wrapped', 'flat', 'execution_id', 'no_success'];
/** One client per era: the raw (2026-07-28) and the wrapped (2025-06-18) projections. */
const CLIENTS: ClientSpec[] = [spec('v2-modern', '2026-07-28'), spec('v1', '2025-06-18')];

type Json = Record<string, unknown>;

/** Deterministic calls (System_GetTimestamp varies with time and is checked by shape only). */
const CALLS: { tool: string; args: Json }[] = [
  ...OUTPUT_CASES.filter((c) => c.tool !== 'System_GetTimestamp').map((c) => ({ tool: c.tool, args: c.args })),
  { tool: 'Doorbell_Ring', args: { doorbell_id: 'doorbell1' } },
  { tool: 'Validate_Strict', args: { count: 0 } },
  { tool: 'Validate_Strict', args: { count: 3 } },
  { tool: 'Schema_Strict', args: { label: 'p', point: [1, 2] } },
];

interface Observed {
  /** The whole tools/list result. */
  list: Json;
  tools: Json[];
  results: Json[];
}

/** Lists and calls everything through `session`, returning the raw wire results. */
async function observe(session: McpSession, revision: McpRevision): Promise<Observed> {
  await session.listTools();
  const list = session.log.lastResponse('tools/list').result as Json;
  const results: Json[] = [];
  for (const call of CALLS) {
    await session.callTool(call.tool, call.args);
    results.push(session.log.lastResponse('tools/call').result as Json);
  }
  session.log.assertValid(revision);
  return { list, tools: list.tools as Json[], results };
}

describe('upstream wire variants are invisible to MCP clients', () => {
  let fixture: OxpFixtureServer;
  const baseline = new Map<string, Observed>();

  before(async () => {
    fixture = await startOxpFixture({ tools: integrationTools(), listShape: 'items', inputSchemaShape: 'bare', resultShape: 'wrapped' });
    // The spec shape is the reference every variant must match.
    const bridge = await startHttpBridge(fixture.url);
    try {
      for (const s of CLIENTS) {
        const session = await connectHttp(s, bridge.mcpUrl);
        try {
          baseline.set(s.label, await observe(session, s.revision));
        } finally {
          await session.close();
        }
      }
    } finally {
      await bridge.close();
    }
  });
  after(async () => {
    await fixture?.close();
  });

  it('the reference (spec-shaped upstream) is itself right', () => {
    for (const s of CLIENTS) {
      const ref = baseline.get(s.label)!;
      expectToolsList(s.revision, ref.list, integrationTools());
      const byTool = new Map(OUTPUT_CASES.map((c) => [c.tool, c]));
      CALLS.forEach((call, i) => {
        const result = ref.results[i]!;
        const c = byTool.get(call.tool);
        if (call.tool === 'Doorbell_Ring' && call.args.doorbell_id === 'doorbell1') expectDoorbellError(s.revision, result, result);
        else if (call.tool === 'Validate_Strict' && call.args.count === 0) expectValidationError(s.revision, result);
        else if (c) expectSuccess(s.revision, result, c, integrationTools());
        else assert.notEqual(result.isError, true, `${call.tool}: ${JSON.stringify(result)}`);
      });
    }
  });

  for (const listShape of LIST_SHAPES) {
    for (const inputSchemaShape of INPUT_SHAPES) {
      describe(`GET /tools as ${listShape}, input_schema ${inputSchemaShape}`, () => {
        let bridge: HttpBridge;
        const sessions = new Map<string, McpSession>();
        before(async () => {
          fixture.setOptions({ listShape, inputSchemaShape, resultShape: 'wrapped' });
          bridge = await startHttpBridge(fixture.url);
          for (const s of CLIENTS) sessions.set(s.label, await connectHttp(s, bridge.mcpUrl));
        });
        after(async () => {
          for (const session of sessions.values()) await session.close();
          await bridge?.close();
        });

        for (const resultShape of RESULT_SHAPES) {
          it(`call results ${resultShape}: the same tools and results as the spec shape`, async () => {
            fixture.setOptions({ resultShape });
            for (const s of CLIENTS) {
              const seen = await observe(sessions.get(s.label)!, s.revision);
              const ref = baseline.get(s.label)!;
              assert.deepEqual(seen.tools, ref.tools, `${s.label}: tools`);
              CALLS.forEach((call, i) => assert.deepEqual(seen.results[i], ref.results[i], `${s.label}: ${call.tool} ${JSON.stringify(call.args)}`));
              const ts = await sessions.get(s.label)!.callTool('System_GetTimestamp', {});
              assert.notEqual(ts.isError, true, JSON.stringify(ts));
              sessions.get(s.label)!.log.assertValid(s.revision);
            }
          });
        }
      });
    }
  }
});

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

describe('what the bridge sends upstream', () => {
  let fixture: OxpFixtureServer;
  let bridge: HttpBridge;
  before(async () => {
    fixture = await startOxpFixture({ tools: integrationTools() });
    bridge = await startHttpBridge(fixture.url);
  });
  after(async () => {
    await bridge?.close();
    await fixture?.close();
  });

  const callsWithInput = (input: Json): RecordedRequest[] =>
    fixture.requests.filter(
      (r) =>
        r.method === 'POST' &&
        r.path === '/tools/call' &&
        JSON.stringify((r.body as { request?: { input?: unknown } } | undefined)?.request?.input) === JSON.stringify(input),
    );

  it('GET /tools carried no body', () => {
    const lists = fixture.requests.filter((r) => r.path === '/tools');
    assert.ok(lists.length >= 1, 'the catalog was fetched');
    for (const r of lists) {
      assert.equal(r.method, 'GET');
      assert.equal(r.rawBody, '', 'no body bytes');
      assert.ok(r.headers['content-length'] === undefined || r.headers['content-length'] === '0', `content-length ${String(r.headers['content-length'])}`);
      assert.equal(r.headers['transfer-encoding'], undefined, 'no chunked body');
      assert.equal(r.headers['content-type'], undefined, 'no content-type for an absent body');
    }
  });

  const clients: ClientSpec[] = [spec('v2-legacy', '2025-11-25'), spec('v2-modern', '2026-07-28'), spec('v1', '2025-03-26')];
  clients.forEach((s, n) => {
    it(`${s.label}: POST /tools/call carries $schema, request.input, a UUID v4 call_id, the pinned tool_id and the traceparent's trace_id`, async () => {
      const session = await connectHttp(s, bridge.mcpUrl);
      try {
        const input = { a: 7 + n, b: 35 };
        const result = await session.callTool('Calculator_Add', input, { traceparent: TRACEPARENT });
        assert.notEqual(result.isError, true, JSON.stringify(result));
        session.log.assertValid(s.revision);

        const [sent, ...more] = callsWithInput(input);
        assert.ok(sent, 'the call reached the upstream');
        assert.equal(more.length, 0, 'exactly once');
        const body = sent.body as Json;
        assert.equal(body.$schema, 'urn:oxp:1.0');
        const req = body.request as Json;
        assert.deepEqual(req.input, input);
        assert.match(String(req.call_id), UUID_V4);
        assert.equal(req.tool_id, 'Calculator.Add@2.0.0', 'pinned to the latest listed version');
        assert.equal(req.trace_id, TRACE_ID);
        assert.equal(sent.headers['content-type'], 'application/json');
      } finally {
        await session.close();
      }
    });
  });

  it('every call gets a fresh call_id; every tool_id is pinned; no traceparent (or an invalid one) → no trace_id; no arguments → input {}', async () => {
    const session = await connectHttp(spec('v2-legacy', '2025-06-18'), bridge.mcpUrl);
    try {
      const before = fixture.requests.length;
      await session.callTool('List_Numbers', {});
      await session.callTool('Text_Echo', { text: 'pin me' });
      await session.callTool('Calculator_Add', { a: 1, b: 1 });
      await session.callTool('Calculator_Add', { a: 1, b: 1 }, { traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01' });
      await session.callTool('Calculator_Add', { a: 1, b: 1 }, { traceparent: 'garbage' });
      await session.callTool('System_GetTimestamp');
      session.log.assertValid('2025-06-18');
      const calls = fixture.requests.slice(before).filter((r) => r.method === 'POST' && r.path === '/tools/call');
      const reqs = calls.map((r) => (r.body as Json).request as Json);
      assert.deepEqual(
        reqs.map((r) => r.tool_id),
        ['List.Numbers@1.0.0', 'Text.Echo@1.0.0', 'Calculator.Add@2.0.0', 'Calculator.Add@2.0.0', 'Calculator.Add@2.0.0', 'System.GetTimestamp@1.0.0'],
      );
      assert.deepEqual(reqs[5]!.input, {}, 'a call without arguments sends input {}');
      const ids = reqs.map((r) => r.call_id as string);
      for (const id of ids) assert.match(id, UUID_V4);
      assert.equal(new Set(ids).size, ids.length, 'call ids are unique');
      for (const r of reqs) assert.ok(!('trace_id' in r), `no trace_id expected: ${JSON.stringify(r)}`);
    } finally {
      await session.close();
    }
  });
});
