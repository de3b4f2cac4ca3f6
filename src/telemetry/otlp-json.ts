/**
 * OTLP/JSON for a batch of spans, written straight into one string: the same
 * bytes as the OpenTelemetry transformer's `JsonTraceSerializer` (proven
 * byte for byte by otlp-json.test.ts), without its intermediate objects.
 *
 * Why the bridge owns this step: with 100 % sampling the transformer was
 * about half of tracing's own CPU per call (bench/README.md, "Tracing cost").
 * It builds an object per span, per attribute (two: the key/value pair and
 * the value), per status, plus two BigInts per timestamp, and then
 * `JSON.stringify` walks them all again; in the bridge those objects compete
 * with the requests for the young generation. Here each span becomes a
 * string fragment, and only string values go through `JSON.stringify` (for
 * their escaping). Pure: no I/O, no imports but types.
 */
import type { AttributeValue, HrTime, Link, SpanContext } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace';

// OTLP span flags: the low 8 bits are the W3C trace flags; these two say whether the parent was remote.
const HAS_IS_REMOTE = 0x100;
const IS_REMOTE = 0x200;

/** The export request body for these spans, grouped by resource and instrumentation scope as the transformer groups them. */
export function otlpJsonRequest(spans: readonly ReadableSpan[]): string {
  const byResource = new Map<Resource, Map<string, ReadableSpan[]>>();
  for (const span of spans) {
    let scopes = byResource.get(span.resource);
    if (!scopes) byResource.set(span.resource, (scopes = new Map()));
    const scope = span.instrumentationScope;
    const key = `${scope.name}@${scope.version || ''}:${scope.schemaUrl || ''}`;
    const group = scopes.get(key);
    if (group) group.push(span);
    else scopes.set(key, [span]);
  }
  const resourceSpans: string[] = [];
  for (const [resource, scopes] of byResource) {
    const scopeSpans: string[] = [];
    for (const group of scopes.values()) {
      const scope = group[0]!.instrumentationScope;
      // Concatenated, not joined: join would copy every span's string once more before the one copy into the body's bytes.
      let body = spanJson(group[0]!);
      for (let i = 1; i < group.length; i++) body += ',' + spanJson(group[i]!);
      scopeSpans.push(`{"scope":${scopeJson(scope)},"spans":[${body}]${optional('schemaUrl', scope.schemaUrl)}}`);
    }
    const schemaUrl = resource.schemaUrl ? resource.schemaUrl : undefined;
    resourceSpans.push(`{"resource":{"attributes":${attributesJson(resource.attributes)},"droppedAttributesCount":0${optional('schemaUrl', schemaUrl)}},"scopeSpans":[${scopeSpans.join(',')}]${optional('schemaUrl', schemaUrl)}}`);
  }
  return `{"resourceSpans":[${resourceSpans.join(',')}]}`;
}

function scopeJson(scope: ReadableSpan['instrumentationScope'] & { attributes?: Record<string, AttributeValue | undefined>; droppedAttributesCount?: number }): string {
  const attributes = scope.attributes && Object.keys(scope.attributes).length > 0 ? `,"attributes":${attributesJson(scope.attributes)},"droppedAttributesCount":${scope.droppedAttributesCount ?? 0}` : '';
  return `{"name":${JSON.stringify(scope.name)}${optional('version', scope.version)}${attributes}}`;
}

function spanJson(span: ReadableSpan): string {
  const context = span.spanContext();
  const parent = span.parentSpanContext;
  const status = span.status;
  let out = '{"traceId":' + JSON.stringify(context.traceId) + ',"spanId":' + JSON.stringify(context.spanId);
  if (parent?.spanId) out += ',"parentSpanId":' + JSON.stringify(parent.spanId);
  if (context.traceState) out += optional('traceState', context.traceState.serialize());
  out += ',"name":' + cachedString(span.name) + ',"kind":' + (span.kind == null ? 0 : span.kind + 1);
  out += ',"startTimeUnixNano":"' + nanos(span.startTime) + '","endTimeUnixNano":"' + nanos(span.endTime) + '","attributes":' + attributesJson(span.attributes);
  const plain = span.droppedAttributesCount === 0 && span.events.length === 0 && span.droppedEventsCount === 0 && status.message === undefined && span.links.length === 0 && span.droppedLinksCount === 0;
  // What a span of the bridge's usually is after its attributes: one piece rather than a dozen.
  if (plain && status.code === 0) return out + PLAIN_UNSET_TAIL + flags(context, parent?.isRemote) + '}';
  return (
    out +
    `,"droppedAttributesCount":${numberJson(span.droppedAttributesCount)}` +
    `,"events":[${span.events.map(eventJson).join(',')}],"droppedEventsCount":${numberJson(span.droppedEventsCount)}` +
    `,"status":{"code":${numberJson(status.code)}${optional('message', status.message)}}` +
    `,"links":[${span.links.map(linkJson).join(',')}],"droppedLinksCount":${numberJson(span.droppedLinksCount)}` +
    `,"flags":${flags(context, parent?.isRemote)}}`
  );
}

const PLAIN_UNSET_TAIL = ',"droppedAttributesCount":0,"events":[],"droppedEventsCount":0,"status":{"code":0},"links":[],"droppedLinksCount":0,"flags":';

function eventJson(event: TimedEvent): string {
  return `{"attributes":${event.attributes ? attributesJson(event.attributes) : '[]'},"name":${JSON.stringify(event.name)},"timeUnixNano":"${nanos(event.time)}","droppedAttributesCount":${numberJson(event.droppedAttributesCount || 0)}}`;
}

function linkJson(link: Link): string {
  const context = link.context;
  return (
    `{"attributes":${link.attributes ? attributesJson(link.attributes) : '[]'},"spanId":${JSON.stringify(context.spanId)},"traceId":${JSON.stringify(context.traceId)}` +
    `${optional('traceState', context.traceState?.serialize())},"droppedAttributesCount":${numberJson(link.droppedAttributesCount || 0)},"flags":${flags(context, context.isRemote)}}`
  );
}

function flags(context: SpanContext, parentIsRemote: boolean | undefined): number {
  return (context.traceFlags & 0xff) | HAS_IS_REMOTE | (parentIsRemote ? IS_REMOTE : 0);
}

/** JSON of a string that recurs (a span name): escaped once. */
const strings = new Map<string, string>();
function cachedString(value: string): string {
  let json = strings.get(value);
  if (json === undefined) {
    json = JSON.stringify(value);
    if (strings.size < 1024) strings.set(value, json);
  }
  return json;
}

const fragments = new Map<string, Map<unknown, string>>();
function attributesJson(attributes: Readonly<Record<string, AttributeValue | undefined>>): string {
  let out = '[';
  let first = true;
  for (const key in attributes) {
    const value = attributes[key];
    let byValue = fragments.get(key);
    if (!byValue) fragments.set(key, (byValue = new Map()));
    let fragment = byValue.get(value);
    if (fragment === undefined) {
      fragment = `{"key":${JSON.stringify(key)},"value":${anyValueJson(value)}}`;
      if (byValue.size < 64 && typeof value !== 'object') byValue.set(value, fragment);
    }
    out += first ? fragment : ',' + fragment;
    first = false;
  }
  return out + ']';
}

/** An OTLP AnyValue, as the transformer's `toAnyValue` maps it (integers to intValue, other numbers to doubleValue). */
function anyValueJson(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return `{"stringValue":${JSON.stringify(value)}}`;
    case 'number':
      return Number.isInteger(value) ? `{"intValue":${value}}` : `{"doubleValue":${numberJson(value)}}`;
    case 'boolean':
      return `{"boolValue":${value}}`;
  }
  if (value instanceof Uint8Array) return `{"bytesValue":"${Buffer.from(value).toString('base64')}"}`;
  if (Array.isArray(value)) return `{"arrayValue":{"values":[${value.map(anyValueJson).join(',')}]}}`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value).map((key) => `{"key":${JSON.stringify(key)},"value":${anyValueJson((value as Record<string, unknown>)[key])}}`);
    return `{"kvlistValue":{"values":[${entries.join(',')}]}}`;
  }
  return '{}';
}

/** A number as JSON writes it: NaN and the infinities become null. */
function numberJson(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}

/** `,"name":"value"`, or nothing when the value is undefined (what `JSON.stringify` omits). */
function optional(name: string, value: string | undefined): string {
  return value === undefined ? '' : `,"${name}":${JSON.stringify(value)}`;
}

/**
 * Nanoseconds since the epoch as a decimal string. The transformer goes
 * through BigInt; a well-formed HrTime (whole seconds, 0 ≤ ns < 1e9) needs
 * only the seconds and the zero-padded nanoseconds side by side.
 */
function nanos(time: HrTime): string {
  const seconds = Math.trunc(time[0]);
  const ns = Math.trunc(time[1]);
  if (seconds > 0 && ns >= 0 && ns < 1e9) return `${seconds}${String(ns).padStart(9, '0')}`;
  return (BigInt(seconds) * 1_000_000_000n + BigInt(ns)).toString();
}
