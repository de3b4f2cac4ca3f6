/**
 * OpenTelemetry tracing end to end, with real processes: the bridge and the
 * oxp-server run as the CLI with `OTEL_*` set and export OTLP to a real
 * receiver (test/helpers/otlp-receiver.ts) over each protocol: http/protobuf
 * (the default, no protocol variable), http/json and grpc; the trace across
 * both processes is checked once per protocol. Checked: the span tree and
 * its parentage across every hop (MCP client → bridge → OXP server sees the
 * `traceparent` header; OXP client → oxp-server → MCP server sees
 * `_meta.traceparent`; OXP client → oxp-server → bridge → OXP server as one
 * trace), header-before-`_meta` precedence on both HTTP paths, stdio, the
 * export on shutdown, trace/span ids in log lines, canaries (arguments,
 * results, secrets, tokens, keys) nowhere in what is exported, and that with
 * tracing off no OpenTelemetry module is even loaded (and with it on, only
 * the chosen protocol's exporter, and @grpc/grpc-js only for grpc).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cleanChildEnv, REPO_ROOT } from '../helpers/it-bridge.js';
import { cliArgs } from '../helpers/ts-entry.js';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startOxpFixture, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { startMcpHttpFixture, type McpHttpFixture } from '../fixtures/mcp-fixture-server.js';
import { MCP_HEADERS, MODERN_META, modernHeaders, readMessages } from '../helpers/bridge-harness.js';
import { eventually } from '../helpers/oxp-server-harness.js';
import {
  OTLP_PROTOCOLS,
  SPAN_KIND,
  startCli,
  startOtlpReceiver,
  tracingEnv,
  type CliProcess,
  type OtlpProtocol,
  type OtlpReceiver,
  type ReceivedSpan,
} from '../helpers/otlp-receiver.js';

const CANARY_ARG = 'canary-argument-5f1e0c';
const CANARY_RESULT = 'canary-result-9a7d21';
const CANARY_SECRET = 'canary-secret-3c88b4';
const CANARY_UPSTREAM_KEY = 'canary-upstream-key-d02f6e';
const CANARY_TOKEN = 'canary-client-token-71aa09';
const CANARY_OXP_KEY = 'canary-oxp-server-key-2b4c5d';
const CANARIES = [CANARY_ARG, CANARY_RESULT, CANARY_SECRET, CANARY_UPSTREAM_KEY, CANARY_TOKEN, CANARY_OXP_KEY];

const traceparent = (trace: string, span: string) => `00-${trace}-${span}-01`;
const T1 = '4bf92f3577b34da6a3ce929d0e0e4736';
const S1 = '00f067aa0ba902b7';
const T_META = '11111111111111111111111111111111';
const S_META = '2222222222222222';

/** An OXP tool that needs a secret and echoes its text (the result carries a canary). */
function fixtureTools() {
  return [
    {
      id: 'Trace.Echo',
      name: 'Trace_Echo',
      version: '1.0.0',
      description: 'Echoes text.',
      input_schema: { type: 'object', properties: { text: { type: 'string' } } },
      requirements: { secrets: [{ id: 'TRACE_SECRET' }] },
      handler: (req: { input?: Record<string, unknown> }) => ({ value: { echo: req.input?.text, note: CANARY_RESULT } }),
    },
  ];
}

/** Every export came in the receiver's protocol, and none was refused. */
function assertProtocol(receiver: OtlpReceiver): void {
  const others = OTLP_PROTOCOLS.filter((p) => p !== receiver.protocol).map((p) => receiver.received[p]);
  assert.ok(receiver.received[receiver.protocol] > 0, `${receiver.protocol} exports: ${JSON.stringify(receiver.received)}`);
  assert.deepEqual(others, [0, 0], `only ${receiver.protocol} exports: ${JSON.stringify(receiver.received)}`);
  assert.equal(receiver.refused, 0);
}

function assertNoCanaries(receiver: OtlpReceiver): void {
  const all = receiver.bodies.join('\n');
  assert.ok(all.length > 0, 'something was exported');
  for (const canary of CANARIES) assert.ok(!all.includes(canary), `${canary} must not be exported`);
}

const one = (spans: ReceivedSpan[], predicate: (s: ReceivedSpan) => boolean, what: string): ReceivedSpan => {
  const found = spans.filter(predicate);
  assert.equal(found.length, 1, `exactly one ${what}: ${JSON.stringify(spans.map((s) => s.name))}`);
  return found[0]!;
};

async function mcpCall(url: string, headers: Record<string, string>, params: Record<string, unknown>, method = 'tools/call') {
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  assert.equal(res.status, 200);
  const messages = await readMessages(res);
  const reply = messages.find((m) => 'result' in m || 'error' in m)!;
  assert.ok(reply && 'result' in reply, JSON.stringify(messages));
  return reply.result as Record<string, unknown>;
}

describe('tracing: MCP client → bridge → OXP server (http/protobuf, the default)', () => {
  let receiver: OtlpReceiver;
  let fixture: OxpFixtureServer;
  let bridge: CliProcess;
  const auth = { authorization: `Bearer ${CANARY_TOKEN}` };
  let tool: string;

  before(async () => {
    receiver = await startOtlpReceiver();
    fixture = await startOxpFixture({ tools: fixtureTools(), auth: { apiKey: CANARY_UPSTREAM_KEY } });
    bridge = await startCli(['--oxp-url', fixture.url, '--port', '0', '--log-level', 'info'], {
      ...tracingEnv(receiver),
      OXP_API_KEY: CANARY_UPSTREAM_KEY,
      OXP_SECRET_TRACE_SECRET: CANARY_SECRET,
      MCP_AUTH_TOKENS: CANARY_TOKEN,
    });
    const list = await mcpCall(bridge.url, { ...modernHeaders('tools/list'), ...auth }, { _meta: MODERN_META }, 'tools/list');
    tool = (list.tools as { name: string }[])[0]!.name;
  });
  after(async () => {
    await bridge?.stop();
    await fixture?.close();
    await receiver?.close();
  });

  it('fast path (2026-07-28): the header wins over _meta; the OXP server gets the attempt span as parent and the trace id as trace_id', async () => {
    const result = await mcpCall(
      bridge.url,
      { ...modernHeaders('tools/call', tool), ...auth, traceparent: traceparent(T1, S1) },
      { name: tool, arguments: { text: CANARY_ARG }, _meta: { ...MODERN_META, traceparent: traceparent(T_META, S_META) } },
    );
    assert.notEqual(result.isError, true, JSON.stringify(result));
    await receiver.waitFor(
      (spans) => spans.some((s) => s.traceId === T1 && s.kind === SPAN_KIND.server) && spans.some((s) => s.traceId === T1 && s.kind === SPAN_KIND.client),
      20_000,
      'the call spans',
    );
    const inTrace = receiver.spans.filter((s) => s.traceId === T1);
    const server = one(inTrace, (s) => s.kind === SPAN_KIND.server, 'MCP server span');
    const attempt = one(inTrace, (s) => s.kind === SPAN_KIND.client, 'OXP attempt span');
    assert.equal(server.name, `tools/call ${tool}`);
    assert.equal(server.parentSpanId, S1, 'the traceparent header is the parent, not _meta');
    assert.equal(server.service, 'mcp-oxp-bridge');
    assert.deepEqual(
      {
        method: server.attributes['mcp.method.name'],
        version: server.attributes['mcp.protocol.version'],
        tool: server.attributes['gen_ai.tool.name'],
        op: server.attributes['gen_ai.operation.name'],
        outcome: server.attributes['mcp_oxp_bridge.outcome'],
        upstream: server.attributes['mcp_oxp_bridge.upstream'],
      },
      { method: 'tools/call', version: '2026-07-28', tool, op: 'execute_tool', outcome: 'success', upstream: 'default' },
    );
    assert.equal(attempt.name, 'POST /tools/call');
    assert.equal(attempt.parentSpanId, server.spanId);
    assert.equal(attempt.attributes['gen_ai.tool.name'], 'Trace.Echo@1.0.0');
    assert.equal(attempt.attributes['http.response.status_code'], 200);
    assert.equal(attempt.attributes['mcp_oxp_bridge.circuit.state'], 'closed');
    assert.equal(attempt.attributes['url.full'], `${fixture.url}/tools/call`);

    const call = fixture.requests.filter((r) => r.path === '/tools/call').at(-1)!;
    assert.equal(call.headers.traceparent, traceparent(T1, attempt.spanId));
    assert.equal((call.body as { request: { trace_id?: string } }).request.trace_id, T1);
    // The call's log line names the trace and the MCP request's span (written within the log's periodic flush, a second).
    const callLine = () => bridge.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'tool call' && l.trace_id === T1);
    await eventually(() => callLine() !== undefined, 10_000, "the call's log line");
    const line = callLine()!;
    assert.equal(line.span_id, server.spanId);
  });

  it('SDK path (2025-11-25, stateless): _meta.traceparent is the parent when there is no header', async () => {
    const metaTrace = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
    // progressToken takes the request off the fast path.
    const result = await mcpCall(
      bridge.url,
      { ...MCP_HEADERS, 'mcp-protocol-version': '2025-11-25', ...auth },
      { name: tool, arguments: { text: CANARY_ARG }, _meta: { traceparent: traceparent(metaTrace, S_META), progressToken: 'p1' } },
    );
    assert.notEqual(result.isError, true, JSON.stringify(result));
    await receiver.waitFor(
      (spans) =>
        spans.some((s) => s.traceId === metaTrace && s.kind === SPAN_KIND.server) && spans.some((s) => s.traceId === metaTrace && s.kind === SPAN_KIND.client),
      20_000,
      'the call spans',
    );
    const server = one(receiver.spans, (s) => s.traceId === metaTrace && s.kind === SPAN_KIND.server, 'MCP server span');
    assert.equal(server.parentSpanId, S_META);
    assert.equal(server.attributes['mcp.protocol.version'], '2025-11-25');
    const call = fixture.requests.filter((r) => r.path === '/tools/call').at(-1)!;
    assert.match(String(call.headers.traceparent), new RegExp(`^00-${metaTrace}-[0-9a-f]{16}-01$`));
  });

  it('a request without trace context starts a trace; catalog refreshes and tools/list have spans; no canary is exported', async () => {
    await mcpCall(bridge.url, { ...modernHeaders('tools/call', tool), ...auth }, { name: tool, arguments: { text: CANARY_ARG }, _meta: MODERN_META });
    await receiver.waitFor((spans) => spans.some((s) => s.name === `tools/call ${tool}` && s.parentSpanId === undefined), 20_000, 'a root call span');
    const root = receiver.spans.find((s) => s.name === `tools/call ${tool}` && s.parentSpanId === undefined)!;
    const call = fixture.requests.filter((r) => r.path === '/tools/call').at(-1)!;
    assert.equal((call.body as { request: { trace_id?: string } }).request.trace_id, root.traceId, 'a new trace still reaches the upstream as trace_id');
    const refresh = receiver.spans.find((s) => s.name === 'catalog refresh')!;
    assert.ok(refresh, 'catalog refresh span');
    assert.equal(refresh.kind, SPAN_KIND.client);
    assert.equal(refresh.attributes['mcp_oxp_bridge.catalog.tools'], 1);
    assert.ok(receiver.spans.some((s) => s.name === 'tools/list' && s.kind === SPAN_KIND.server));
    assertProtocol(receiver);
    assertNoCanaries(receiver);
  });
});

describe('tracing over stdio (grpc)', () => {
  it('takes _meta.traceparent and exports on exit (the batch delay is a minute)', async () => {
    const receiver = await startOtlpReceiver('grpc');
    const fixture = await startOxpFixture({ tools: fixtureTools() });
    const bridge = await startCli(
      ['--transport', 'stdio', '--oxp-url', fixture.url, '--log-level', 'warn'],
      { ...tracingEnv(receiver), OTEL_BSP_SCHEDULE_DELAY: '60000', OXP_SECRET_TRACE_SECRET: CANARY_SECRET },
      { stdio: true },
    );
    try {
      const replies: Record<string, unknown>[] = [];
      let partial = '';
      bridge.child.stdout!.setEncoding('utf8');
      bridge.child.stdout!.on('data', (chunk: string) => {
        partial += chunk;
        let nl: number;
        while ((nl = partial.indexOf('\n')) !== -1) {
          replies.push(JSON.parse(partial.slice(0, nl)) as Record<string, unknown>);
          partial = partial.slice(nl + 1);
        }
      });
      const send = (message: Record<string, unknown>) => bridge.child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
      send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
      send({ method: 'notifications/initialized' });
      send({
        id: 2,
        method: 'tools/call',
        params: { name: 'Trace_Echo', arguments: { text: CANARY_ARG }, _meta: { traceparent: traceparent(T_META, S_META) } },
      });
      const deadline = Date.now() + 20_000;
      while (!replies.some((r) => r.id === 2) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      assert.ok(
        replies.some((r) => r.id === 2 && 'result' in r),
        JSON.stringify(replies),
      );
      assert.equal(receiver.spans.length, 0, 'nothing exported before the batch delay or the exit');
      bridge.child.stdin!.end();
      assert.equal(await bridge.exited, 0);
      const server = one(receiver.spans, (s) => s.traceId === T_META && s.kind === SPAN_KIND.server, 'MCP server span');
      assert.equal(server.parentSpanId, S_META);
      assert.equal(server.attributes['mcp.protocol.version'], '2025-06-18');
      one(receiver.spans, (s) => s.traceId === T_META && s.kind === SPAN_KIND.client && s.parentSpanId === server.spanId, 'OXP attempt span');
      assertProtocol(receiver);
      assertNoCanaries(receiver);
    } finally {
      await bridge.stop();
      await fixture.close();
      await receiver.close();
    }
  });
});

async function oxpCall(url: string, toolId: string, headers: Record<string, string>) {
  const res = await fetch(`${url}/tools/call`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'oxp-api-key': CANARY_OXP_KEY, ...headers },
    body: JSON.stringify({
      $schema: 'urn:oxp:1.0',
      request: { tool_id: toolId, input: { text: CANARY_ARG }, context: { secrets: [{ id: 'S', value: CANARY_SECRET }] } },
    }),
  });
  const body = (await res.json()) as { result?: { success?: boolean } };
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.equal(body.result?.success, true, JSON.stringify(body));
}

async function oxpToolId(url: string, prefix: string): Promise<string> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await fetch(`${url}/tools`, { headers: { 'oxp-api-key': CANARY_OXP_KEY } });
    const items = res.ok ? ((await res.json()) as { items: { id: string }[] }).items : [];
    const found = items.find((t) => t.id.startsWith(prefix));
    if (found) return found.id;
    if (Date.now() > deadline) throw new Error(`no ${prefix} tool listed`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('tracing: OXP client → oxp-server → MCP server (http/json)', () => {
  let receiver: OtlpReceiver;
  let mcp: McpHttpFixture;
  let server: CliProcess;

  before(async () => {
    receiver = await startOtlpReceiver('http/json');
    mcp = await startMcpHttpFixture();
    server = await startCli(['oxp-server', '--mcp-url', `Web=${mcp.url}`, '--port', '0', '--api-key', CANARY_OXP_KEY], tracingEnv(receiver));
  });
  after(async () => {
    await server?.stop();
    await mcp?.close();
    await receiver?.close();
  });

  it('the OXP request continues the traceparent header; the MCP server gets the MCP call span in _meta.traceparent', async () => {
    const toolId = await oxpToolId(server.url, 'Web.echo');
    mcp.catalog.setTools(
      mcp.catalog.tools.map((t) => (t.name === 'echo-text' ? { ...t, run: () => ({ result: { content: [{ type: 'text', text: CANARY_RESULT }] } }) } : t)),
    );
    await oxpCall(server.url, toolId, { traceparent: traceparent(T1, S1) });
    await receiver.waitFor((spans) => spans.filter((s) => s.traceId === T1).length >= 2, 20_000, 'the oxp-server spans');
    const inTrace = receiver.spans.filter((s) => s.traceId === T1);
    const oxp = one(inTrace, (s) => s.kind === SPAN_KIND.server, 'OXP server span');
    const mcpCallSpan = one(inTrace, (s) => s.kind === SPAN_KIND.client, 'MCP client span');
    assert.equal(oxp.service, 'mcp-oxp-bridge-oxp-server');
    assert.equal(oxp.name, 'POST /tools/call');
    assert.equal(oxp.parentSpanId, S1);
    assert.equal(oxp.attributes['http.response.status_code'], 200);
    assert.equal(oxp.attributes['gen_ai.tool.name'], toolId);
    assert.equal(mcpCallSpan.name, 'tools/call echo-text');
    assert.equal(mcpCallSpan.parentSpanId, oxp.spanId);
    assert.equal(mcpCallSpan.attributes['mcp.method.name'], 'tools/call');
    assert.equal(mcpCallSpan.attributes['mcp_oxp_bridge.upstream'], 'Web');
    const seen = mcp.catalog.calls.at(-1)!.meta as Record<string, unknown>;
    assert.equal(seen.traceparent, traceparent(T1, mcpCallSpan.spanId));
    assertProtocol(receiver);
    assertNoCanaries(receiver);
  });
});

/**
 * The environment for exporting to `receiver`; for grpc through the traces
 * variable over a general one that says otherwise (the specification's order).
 */
function protocolEnv(receiver: OtlpReceiver): Record<string, string> {
  if (receiver.protocol !== 'grpc') return tracingEnv(receiver);
  return { ...tracingEnv(receiver), OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' };
}

describe('tracing: one trace across both processes (OXP client → oxp-server → bridge → OXP server), per protocol', () => {
  for (const protocol of OTLP_PROTOCOLS) it(`keeps the trace id and the parentage at every hop (${protocol})`, () => oneTraceAcrossBoth(protocol));
});

async function oneTraceAcrossBoth(protocol: OtlpProtocol): Promise<void> {
  const receiver = await startOtlpReceiver(protocol);
  const fixture = await startOxpFixture({ tools: fixtureTools() });
  const bridge = await startCli(['--oxp-url', fixture.url, '--port', '0', '--log-level', 'info'], {
    ...protocolEnv(receiver),
    OXP_SECRET_TRACE_SECRET: CANARY_SECRET,
  });
  const server = await startCli(['oxp-server', '--mcp-url', `Chain=${bridge.url}`, '--port', '0', '--api-key', CANARY_OXP_KEY], protocolEnv(receiver));
  try {
    const toolId = await oxpToolId(server.url, 'Chain.');
    await oxpCall(server.url, toolId, { traceparent: traceparent(T1, S1) });
    await receiver.waitFor((spans) => spans.filter((s) => s.traceId === T1).length >= 4, 20_000, 'four spans in the trace');
    const inTrace = receiver.spans.filter((s) => s.traceId === T1);
    const oxp = one(inTrace, (s) => s.service === 'mcp-oxp-bridge-oxp-server' && s.kind === SPAN_KIND.server, 'oxp-server span');
    const mcpClient = one(inTrace, (s) => s.service === 'mcp-oxp-bridge-oxp-server' && s.kind === SPAN_KIND.client, 'oxp-server MCP call span');
    const bridgeServer = one(inTrace, (s) => s.service === 'mcp-oxp-bridge' && s.kind === SPAN_KIND.server, 'bridge MCP span');
    const attempt = one(inTrace, (s) => s.service === 'mcp-oxp-bridge' && s.kind === SPAN_KIND.client, 'bridge OXP attempt span');
    assert.equal(oxp.parentSpanId, S1);
    assert.equal(mcpClient.parentSpanId, oxp.spanId);
    assert.equal(bridgeServer.parentSpanId, mcpClient.spanId, 'the bridge continued _meta.traceparent from the oxp-server');
    assert.equal(attempt.parentSpanId, bridgeServer.spanId);
    const call = fixture.requests.filter((r) => r.path === '/tools/call').at(-1)!;
    assert.equal(call.headers.traceparent, traceparent(T1, attempt.spanId));
    assertProtocol(receiver);
    assertNoCanaries(receiver);
  } finally {
    await server.stop();
    await bridge.stop();
    await fixture.close();
    await receiver.close();
  }
}

describe('tracing off', () => {
  const hook = new URL('../helpers/record-otel-modules.mjs', import.meta.url).href;

  async function modulesLoaded(env: Record<string, string>): Promise<string[]> {
    const dir = mkdtempSync(join(tmpdir(), 'otel-modules-'));
    const file = join(dir, 'loaded.txt');
    writeFileSync(file, '');
    const fixture = await startOxpFixture({ tools: fixtureTools() });
    const bridge = await startCli(
      ['--oxp-url', fixture.url, '--port', '0', '--log-level', 'info'],
      { ...env, RECORD_OTEL_MODULES_FILE: file, OXP_SECRET_TRACE_SECRET: CANARY_SECRET },
      { nodeArgs: ['--import', hook] },
    );
    try {
      await mcpCall(bridge.url, modernHeaders('tools/call', 'Trace_Echo'), { name: 'Trace_Echo', arguments: { text: 'x' }, _meta: MODERN_META });
    } finally {
      await bridge.stop();
      await fixture.close();
    }
    return readFileSync(file, 'utf8').split('\n').filter(Boolean);
  }

  it("loads no @opentelemetry module without OTEL_* (and the check sees them when tracing is on: the default protocol's exporter only)", async () => {
    const receiver = await startOtlpReceiver();
    try {
      assert.deepEqual(await modulesLoaded({ OTEL_SERVICE_NAME: 'not-enough-to-turn-it-on' }), []);
      const on = await modulesLoaded(tracingEnv(receiver));
      assert.ok(
        on.some((url) => url.includes('/@opentelemetry/sdk-trace/')),
        `the recorder works: ${on.join('\n')}`,
      );
      // Only the chosen protocol's exporter is loaded: http/protobuf by default, and gRPC's only for grpc.
      assert.ok(
        on.some((url) => url.includes('/@opentelemetry/exporter-trace-otlp-proto/')),
        on.join('\n'),
      );
      for (const other of ['/@opentelemetry/exporter-trace-otlp-http/', '/@opentelemetry/exporter-trace-otlp-grpc/', '/@grpc/'])
        assert.ok(!on.some((url) => url.includes(other)), `${other} loaded: ${on.join('\n')}`);
      assert.deepEqual(await modulesLoaded({ ...tracingEnv(receiver), OTEL_SDK_DISABLED: 'true' }), [], 'OTEL_SDK_DISABLED wins');
    } finally {
      await receiver.close();
    }
  });
});

describe('an OTLP protocol the bridge cannot use', () => {
  // docs/observability.md: any other protocol value stops the start (exit 2, naming the variable), tracing on or off.
  for (const [label, args] of [
    ['bridge', ['--port', '0']],
    ['oxp-server', ['oxp-server', '--port', '0', '--mcp-url', 'X=http://127.0.0.1:9/mcp']],
  ] as const) {
    it(`stops the start with one line, even with no endpoint set (${label})`, async () => {
      const child = spawn(process.execPath, cliArgs([...args]), {
        cwd: REPO_ROOT,
        env: { ...cleanChildEnv(), OTEL_EXPORTER_OTLP_PROTOCOL: 'bogus' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      const [code] = (await once(child, 'exit')) as [number | null];
      clearTimeout(timer);
      assert.equal(code, 2, stderr);
      assert.deepEqual(stderr.trim().split('\n'), [
        'mcp-oxp-bridge: OTEL_EXPORTER_OTLP_PROTOCOL=bogus is not an OTLP protocol; use http/protobuf (the default), http/json or grpc',
      ]);
    });
  }
});
