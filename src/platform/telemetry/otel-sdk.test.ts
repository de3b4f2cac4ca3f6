/**
 * The facade's spans through the SDK's tracer provider, batch processor and
 * OTLP exporters to a real receiver, over each of the three protocols: what
 * each span carries (parentage, kind, attributes, events, error status,
 * resource, scope, times), sampling (an unsampled parent propagates flags 00
 * and nothing is exported; ratio 0 records nothing), and that an ended span
 * takes no more changes.
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { OTLP_PROTOCOLS, SPAN_KIND, startOtlpReceiver, type OtlpProtocol, type OtlpReceiver } from '../../../test/helpers/otlp-receiver.js';
import { createLogger } from '../log.js';
import { tracingDecision } from './tracing-settings.js';
import { createOtelTracer } from './otel-sdk.js';

const receivers = new Map<OtlpProtocol, OtlpReceiver>();
let receiver: OtlpReceiver;
const saved = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;

before(async () => {
  for (const protocol of OTLP_PROTOCOLS) receivers.set(protocol, await startOtlpReceiver(protocol));
  receiver = receivers.get('http/protobuf')!;
});
after(async () => {
  if (saved === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = saved;
  for (const r of receivers.values()) await r.close();
});

/** A tracer exporting to `to` in its protocol; the exporter reads its endpoint from the environment, as in the bridge. */
function tracerWith(env: Record<string, string>, to: OtlpReceiver = receiver) {
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = to.endpoint;
  const decision = tracingDecision(
    { OTEL_EXPORTER_OTLP_ENDPOINT: to.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: to.protocol, OTEL_BSP_SCHEDULE_DELAY: '60000', ...env },
    'unit-svc',
  );
  assert.ok(decision.enabled);
  return createOtelTracer(decision.settings, '9.9.9', createLogger('silent'));
}

for (const protocol of OTLP_PROTOCOLS) {
  it(`exports server and client spans with parentage, attributes, events, error status, resource and times (${protocol})`, async () => {
    const to = receivers.get(protocol)!;
    const tracer = await tracerWith({ OTEL_TRACES_SAMPLER: 'always_on' }, to);
    const parentHeader = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const server = tracer.start('tools/call', { kind: 'server', parent: parentHeader, attributes: { 'a.given': 'x', 'a.skipped': undefined } });
    assert.equal(server.recording, true);
    assert.equal(server.traceId, '0af7651916cd43dd8448eb211c80319c');
    const client = tracer.start('POST /tools/call', { kind: 'client', parent: server });
    assert.equal(client.traceparent, `00-${server.traceId}-${client.spanId}-01`);
    client.set({ 'http.request.method': 'POST', 'server.port': 8080, 'not.set': undefined });
    client.setAttribute('mcp_oxp_bridge.attempt', 1);
    client.fail('timeout');
    client.end();
    server.event('retry', { 'mcp_oxp_bridge.attempt': 2, gone: undefined });
    server.rename('tools/call echo');
    server.setAttribute('flag', true);
    server.end();
    server.setAttribute('after.end', 'ignored');
    server.end(); // a second end exports nothing more
    await tracer.shutdown();

    assert.equal(to.received[protocol], 1, `one ${protocol} export: ${JSON.stringify(to.received)}`);
    const spans = to.spans.filter((s) => s.service === 'unit-svc');
    assert.equal(spans.length, 2);
    const s = spans.find((x) => x.kind === SPAN_KIND.server)!;
    const c = spans.find((x) => x.kind === SPAN_KIND.client)!;
    assert.equal(s.name, 'tools/call echo');
    assert.equal(s.parentSpanId, 'b7ad6b7169203331');
    assert.deepEqual(s.attributes, { 'a.given': 'x', flag: true });
    assert.deepEqual(s.events, [{ name: 'retry', attributes: { 'mcp_oxp_bridge.attempt': 2 } }]);
    assert.equal(s.status, 0);
    assert.equal(c.parentSpanId, s.spanId);
    assert.equal(c.traceId, s.traceId);
    assert.deepEqual(c.attributes, { 'http.request.method': 'POST', 'server.port': 8080, 'mcp_oxp_bridge.attempt': 1, 'error.type': 'timeout' });
    assert.equal(c.status, 2);
    assert.equal(s.resource['service.version'], '9.9.9');
    assert.deepEqual(s.scope, { name: 'mcp-oxp-bridge', version: '9.9.9' });
    for (const span of [s, c]) {
      assert.ok(span.end >= span.start, 'ends after it starts');
      assert.ok(Math.abs(Number(span.start / 1_000_000n) - Date.now()) < 60_000, 'wall-clock time');
    }
  });
}

it('a new trace without a parent; an invalid traceparent starts one too', async () => {
  const tracer = await tracerWith({ OTEL_TRACES_SAMPLER: 'always_on' });
  const a = tracer.start('tools/list', { kind: 'server' });
  const b = tracer.start('tools/list', { kind: 'server', parent: '00-zz-not-a-header' });
  assert.match(a.traceId!, /^[0-9a-f]{32}$/);
  assert.notEqual(a.traceId, b.traceId);
  a.end();
  b.end();
  await tracer.shutdown();
});

it('parent-based sampling: an unsampled parent propagates flags 00 and nothing is recorded or exported', async () => {
  const before = receiver.spans.length;
  const tracer = await tracerWith({});
  const server = tracer.start('tools/call', { kind: 'server', parent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00' });
  assert.equal(server.recording, false);
  assert.equal(server.traceId, '0af7651916cd43dd8448eb211c80319c');
  const client = tracer.start('POST /tools/call', { kind: 'client', parent: server });
  assert.equal(client.recording, false);
  assert.equal(client.traceparent, `00-0af7651916cd43dd8448eb211c80319c-${client.spanId}-00`);
  client.setAttribute('x', 1);
  client.end();
  server.end();
  await tracer.shutdown();
  assert.equal(receiver.spans.length, before);
});

it('ratio 0: a root span is not recorded but still has a trace id to pass on', async () => {
  const before = receiver.spans.length;
  const tracer = await tracerWith({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' });
  const span = tracer.start('tools/call', { kind: 'server' });
  assert.equal(span.recording, false);
  assert.match(span.traceparent!, /^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
  span.end();
  await tracer.shutdown();
  assert.equal(receiver.spans.length, before);
});
