/**
 * The facade's spans through the SDK's batch processor and OTLP/HTTP exporter
 * to a real receiver: what each span carries (parentage, kind, attributes,
 * events, error status, times), sampling (an unsampled parent propagates
 * flags 00 and nothing is exported; ratio 0 records nothing), and that an
 * ended span takes no more changes.
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { SPAN_KIND, startOtlpReceiver, type OtlpReceiver } from '../../test/helpers/otlp-receiver.js';
import { createLogger } from '../log.js';
import { tracingDecision } from './config.js';
import { ROOT_CONTEXT, SpanKind, TraceFlags, trace, type SpanContext } from '@opentelemetry/api';
import { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace';
import { createOtelTracer, parentBasedDecision } from './otel-sdk.js';

let receiver: OtlpReceiver;
const saved = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;

before(async () => {
  receiver = await startOtlpReceiver();
  // The exporter reads its endpoint from the environment, as in the bridge.
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.endpoint;
});
after(async () => {
  if (saved === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = saved;
  await receiver.close();
});

function tracerWith(env: Record<string, string>) {
  const decision = tracingDecision({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: '60000', ...env }, 'unit-svc');
  assert.ok(decision.enabled);
  return createOtelTracer(decision.settings, '9.9.9', createLogger('silent'));
}

it('exports server and client spans with parentage, attributes, events, error status and times', async () => {
  const tracer = tracerWith({ OTEL_TRACES_SAMPLER: 'always_on' });
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
  server.event('retry', { 'mcp_oxp_bridge.attempt': 2, 'gone': undefined });
  server.rename('tools/call echo');
  server.setAttribute('flag', true);
  server.end();
  server.setAttribute('after.end', 'ignored');
  server.end(); // a second end exports nothing more
  await tracer.shutdown();

  const spans = receiver.spans.filter((s) => s.service === 'unit-svc');
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
  const body = JSON.parse(receiver.bodies.at(-1)!) as { resourceSpans: { resource: { attributes: { key: string; value: { stringValue?: string } }[] }; scopeSpans: { scope: { name: string; version: string } }[] }[] };
  const rs = body.resourceSpans[0]!;
  assert.equal(rs.resource.attributes.find((a) => a.key === 'service.version')?.value.stringValue, '9.9.9');
  assert.deepEqual(rs.scopeSpans[0]!.scope, { name: 'mcp-oxp-bridge', version: '9.9.9' });
  for (const span of [s, c]) {
    assert.ok(span.end >= span.start, 'ends after it starts');
    assert.ok(Math.abs(Number(span.start / 1_000_000n) - Date.now()) < 60_000, 'wall-clock time');
  }
});

it('a new trace without a parent; an invalid traceparent starts one too', async () => {
  const tracer = tracerWith({ OTEL_TRACES_SAMPLER: 'always_on' });
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
  const tracer = tracerWith({});
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
  const tracer = tracerWith({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' });
  const span = tracer.start('tools/call', { kind: 'server' });
  assert.equal(span.recording, false);
  assert.match(span.traceparent!, /^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
  span.end();
  await tracer.shutdown();
  assert.equal(receiver.spans.length, before);
});

it('decides a child span as the SDK ParentBasedSampler does, for every parent and root sampler the bridge builds', () => {
  const roots = [new AlwaysOnSampler(), new AlwaysOffSampler(), new TraceIdRatioBasedSampler(0), new TraceIdRatioBasedSampler(0.5), new TraceIdRatioBasedSampler(1)];
  const traceId = '0af7651916cd43dd8448eb211c80319c';
  let compared = 0;
  for (const root of roots) {
    const sdk = new ParentBasedSampler({ root });
    for (const traceFlags of [TraceFlags.SAMPLED, TraceFlags.NONE]) {
      for (const isRemote of [true, false]) {
        const parent: SpanContext = { traceId, spanId: 'b7ad6b7169203331', traceFlags, isRemote };
        const expected = sdk.shouldSample(trace.setSpanContext(ROOT_CONTEXT, parent), traceId, 'child', SpanKind.CLIENT, {}, []);
        assert.deepEqual(parentBasedDecision(parent), expected, `root ${root.toString()}, flags ${traceFlags}, remote ${isRemote}`);
        compared++;
      }
    }
  }
  assert.equal(compared, 20);
});

it('places a child span within its parent on the timeline, to the sub-millisecond', async () => {
  const tracer = tracerWith({ OTEL_TRACES_SAMPLER: 'always_on' });
  const pairs: [ReturnType<typeof tracer.start>, ReturnType<typeof tracer.start>][] = [];
  // Parents started at arbitrary points within a millisecond, children started and ended within microseconds of them.
  for (let i = 0; i < 40; i++) {
    const parent = tracer.start(`parent-${i}`, { kind: 'server' });
    const child = tracer.start(`child-${i}`, { kind: 'client', parent });
    child.end();
    parent.end();
    pairs.push([parent, child]);
    await new Promise((r) => setTimeout(r, i % 3));
  }
  await tracer.shutdown();
  const received = new Map(receiver.spans.filter((x) => x.service === 'unit-svc').map((x) => [x.spanId, x]));
  let subMillisecond = 0;
  for (const [parent, child] of pairs) {
    const p = received.get(parent.spanId!);
    const c = received.get(child.spanId!);
    assert.ok(p && c, 'both spans exported');
    assert.ok(c.start >= p.start, 'the child starts after its parent');
    assert.ok(c.end <= p.end, 'the child ends before its parent');
    if (c.start % 1_000_000n !== 0n) subMillisecond++;
  }
  // A root span starts on the wall clock (whole milliseconds, to a double's precision); a child on its parent's anchor plus monotonic time.
  assert.ok(subMillisecond > 30, `children's times carry more than whole milliseconds (${subMillisecond} of 40)`);
});
