/**
 * The bridge's OTLP/JSON writer against the OpenTelemetry transformer it
 * replaces: for every span shape (root and child spans, local and remote
 * parents, trace state, events, links, error status with and without a
 * message, every attribute value type, several resources and scopes, odd
 * strings and numbers), the two must write the same bytes.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { SpanKind, SpanStatusCode, TraceFlags, type AttributeValue, type HrTime, type SpanContext } from '@opentelemetry/api';
import { millisToHrTime, TraceState } from '@opentelemetry/core';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace';
import { otlpJsonRequest } from './otlp-json.js';

const serviceA = resourceFromAttributes({ 'service.name': 'bridge', 'service.version': '1.2.3', 'host.cores': 2 });
const serviceB = resourceFromAttributes({ 'service.name': 'other "quoted" \u2028 ünïcode' });
const scope = { name: 'mcp-oxp-bridge', version: '1.2.3' };

interface Shape {
  name?: string;
  kind?: SpanKind;
  context?: Partial<SpanContext>;
  parent?: SpanContext;
  attributes?: Record<string, AttributeValue>;
  events?: TimedEvent[];
  links?: ReadableSpan['links'];
  status?: ReadableSpan['status'];
  resource?: Resource;
  instrumentationScope?: ReadableSpan['instrumentationScope'];
  startTime?: HrTime;
  endTime?: HrTime;
}

let counter = 0;
function span(shape: Shape = {}): ReadableSpan {
  counter++;
  const context: SpanContext = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: `b7ad6b71692033${String(counter % 100).padStart(2, '0')}`, traceFlags: TraceFlags.SAMPLED, ...shape.context };
  const startTime = shape.startTime ?? [1_764_000_000, 5_000 * counter];
  const endTime = shape.endTime ?? [1_764_000_001, 999_999_999];
  return {
    name: shape.name ?? 'tools/call echo',
    kind: shape.kind ?? SpanKind.SERVER,
    spanContext: () => context,
    parentSpanContext: shape.parent,
    startTime,
    endTime,
    status: shape.status ?? { code: SpanStatusCode.UNSET },
    attributes: shape.attributes ?? {},
    links: shape.links ?? [],
    events: shape.events ?? [],
    duration: [1, 0],
    ended: true,
    resource: shape.resource ?? serviceA,
    instrumentationScope: shape.instrumentationScope ?? scope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

function assertSameBytes(spans: ReadableSpan[]): void {
  const expected = new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans));
  assert.equal(otlpJsonRequest(spans).toString(), expected);
}

it('writes a traced call (server and client span, the attributes the call sites set) as the transformer does', () => {
  const server = span({ attributes: { 'rpc.system': 'jsonrpc', 'mcp.method.name': 'tools/call', 'mcp_oxp_bridge.outcome': 'success', 'gen_ai.tool.name': 'echo' } });
  const client = span({
    name: 'POST /tools/call',
    kind: SpanKind.CLIENT,
    parent: server.spanContext(),
    attributes: { 'http.request.method': 'POST', 'server.port': 43210, 'url.full': 'http://127.0.0.1:43210/tools/call', 'mcp_oxp_bridge.attempt': 1, 'http.response.status_code': 200 },
  });
  assertSameBytes([client, server]);
});

it('writes remote parents, trace state, events, links and error statuses as the transformer does', () => {
  const remote: SpanContext = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.SAMPLED, isRemote: true };
  assertSameBytes([
    span({ parent: remote, context: { traceState: new TraceState('vendor=a,other=b') } }),
    span({ parent: { ...remote, spanId: '' } }), // an empty parent id is no parent
    span({ context: { traceFlags: TraceFlags.NONE } }),
    span({ status: { code: SpanStatusCode.ERROR, message: 'timeout' } }),
    span({ status: { code: SpanStatusCode.ERROR } }),
    span({ status: { code: SpanStatusCode.OK } }),
    span({
      events: [
        { name: 'retry', time: [1_764_000_000, 1], attributes: { 'mcp_oxp_bridge.attempt': 2 } },
        { name: 'circuit open', time: [1_764_000_000, 999_999_999], droppedAttributesCount: 3 },
      ],
    }),
    span({ links: [{ context: remote, attributes: { why: 'batch' } }, { context: { ...remote, isRemote: false, traceState: new TraceState('k=v') }, droppedAttributesCount: 1 }] }),
  ]);
});

it('writes every attribute value type and odd strings and numbers as the transformer does', () => {
  assertSameBytes([
    span({
      name: 'quote " backslash \\ newline \n tab \t nul \u0000 lone surrogate \ud800 emoji 🚀 separator \u2028',
      attributes: {
        string: 'x',
        empty: '',
        integer: 42,
        negative: -7,
        zero: -0,
        big: 1e21,
        unsafe: 2 ** 60,
        double: 3.25,
        tiny: 5e-324,
        nan: Number.NaN,
        infinite: Number.POSITIVE_INFINITY,
        yes: true,
        no: false,
        strings: ['a', 'b "c"'],
        numbers: [1, 2.5],
        booleans: [true],
        holes: ['a', null, undefined] as unknown as string[],
        empties: [],
        'key "with" quotes': 'v',
      },
    }),
    span({ attributes: { bytes: new Uint8Array([0, 1, 2, 250]) as unknown as string, map: { a: 1, b: { c: 'd' } } as unknown as string, gone: undefined as unknown as string } }),
  ]);
});

it('groups spans by resource and scope, in first-seen order, as the transformer does', () => {
  const withSchema = resourceFromAttributes({ 'service.name': 'schema' }, { schemaUrl: 'https://opentelemetry.io/schemas/1.30.0' });
  assertSameBytes([
    span(),
    span({ resource: serviceB }),
    span({ instrumentationScope: { name: 'other-scope' } }),
    span({ instrumentationScope: { name: 'scoped', version: '2', schemaUrl: 'https://example.test/schema' } }),
    span({ resource: withSchema }),
    span(),
    span({ resource: serviceB, instrumentationScope: { name: 'other-scope' } }),
  ]);
});

it('writes timestamps at the edges (epoch, zero nanoseconds, the last nanosecond, fractions) as the transformer does', () => {
  assertSameBytes([
    span({ startTime: [0, 0], endTime: [0, 1] }),
    span({ startTime: [1, 0], endTime: [1_764_000_000, 999_999_999] }),
    span({ startTime: [1_764_000_000.7, 12.9], endTime: [2_000_000_000, 0] }),
    span({ startTime: [1_764_000_000, 1_500_000_000], endTime: [-1, 5] }), // not well formed: both fall back to BigInt arithmetic
  ]);
});

it('writes times kept as epoch milliseconds (the bridge spans) as the transformer writes their HrTime getters', () => {
  const timed = (startEpochMs: number, endEpochMs: number) => Object.assign(span({ startTime: millisToHrTime(startEpochMs), endTime: millisToHrTime(endEpochMs) }), { startEpochMs, endEpochMs });
  assertSameBytes([
    timed(1_764_000_000_123, 1_764_000_000_123.5),
    // Fractions of a nanosecond round to the nearest (1,220.703125 ns here: the double's steps at this epoch are 2^-12 ms).
    timed(1_764_000_000_123 + 5 / 4096, 1_764_000_001_999 + 4091 / 4096),
    timed(999.999_999_9, 1_000.000_000_6), // rounds up to 1e9 ns: the transformer's BigInt sum carries it into the seconds
    timed(1, 999.5),
  ]);
});

it('writes ids and names that need escaping, or are not ASCII, as the transformer does', () => {
  assertSameBytes([
    span({ context: { traceId: 'not "hex" at all', spanId: 'back\\slash' }, name: 'résumé' }),
    span({ context: { traceId: 'del \u007f is plain', spanId: 'é' }, parent: { traceId: 'x', spanId: 'control \u0001', traceFlags: TraceFlags.SAMPLED } }),
  ]);
});

it('writes spans far larger than the writer first reserves (long multi-byte values) as the transformer does', () => {
  assertSameBytes([span({ name: '🚀'.repeat(5_000), attributes: { long: '€'.repeat(100_000), ascii: 'x'.repeat(50_000) } }), span(), span({ attributes: { again: 'ü'.repeat(3_000) } })]);
});

it('writes past the bounds of its attribute cache (more keys, more values per key) as the transformer does', () => {
  const manyKeys = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`key.${i}`, i % 2 ? `v${i}` : i]));
  assertSameBytes([span({ attributes: manyKeys }), ...Array.from({ length: 80 }, (_, i) => span({ attributes: { 'one.key': `value-${i}`, first: i } })), span({ attributes: manyKeys })]);
});

it('writes an empty batch as the transformer does', () => {
  assertSameBytes([]);
});
