/**
 * OTLP/JSON for a batch of spans, written straight into one buffer: the same
 * bytes as the OpenTelemetry transformer's `JsonTraceSerializer` (proven
 * byte for byte by otlp-json.test.ts), without its intermediate objects.
 *
 * Why the bridge owns this step: with 100 % sampling the transformer was the
 * largest part of tracing's own CPU per call, 14.6 µs of it, against 7.9 µs
 * for this (bench/README.md, "2026-11-24, night").
 * It builds an object per span, per attribute (two: the key/value pair and
 * the value), per status, plus two BigInts per timestamp, and then
 * `JSON.stringify` walks them all again and the result is encoded to UTF-8.
 * Here the bytes are written straight into one buffer: the JSON of recurring
 * attribute pairs and of the constant parts is encoded once and copied, and
 * per span only what is new (ids, times, call ids) is written, byte by byte,
 * with no string built per span (bench/README.md, "2026-11-25").
 * Pure: no I/O, no imports but types.
 */
import type { AttributeValue, HrTime, Link, SpanContext, SpanStatusCode } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace';

// OTLP span flags: the low 8 bits are the W3C trace flags; these two say whether the parent was remote.
const HAS_IS_REMOTE = 0x100;
const IS_REMOTE = 0x200;
/** SpanStatusCode.UNSET: the enum is imported as a type only, this module loads nothing from the API. */
const STATUS_UNSET: SpanStatusCode = 0;

/**
 * A span that keeps its times as epoch milliseconds (otel-sdk.ts's
 * RecordedSpan): written from the numbers, as `millisToHrTime` would split
 * them, without building the two HrTime arrays its getters would.
 */
export interface EpochMillisTimes {
  readonly startEpochMs: number;
  readonly endEpochMs: number;
}

/** The export request body for these spans, grouped by resource and instrumentation scope as the transformer groups them. */
export function otlpJsonRequest(spans: readonly ReadableSpan[]): Buffer {
  const byResource = new Map<Resource, Map<string, ReadableSpan[]>>();
  for (const span of spans) {
    let scopes = byResource.get(span.resource);
    if (!scopes) byResource.set(span.resource, (scopes = new Map<string, ReadableSpan[]>()));
    const key = scopeKey(span.instrumentationScope);
    const group = scopes.get(key);
    if (group) group.push(span);
    else scopes.set(key, [span]);
  }
  const out = new ByteWriter(spans.length * 1200);
  out.text('{"resourceSpans":[');
  let firstResource = true;
  for (const [resource, scopes] of byResource) {
    const schemaUrl = resource.schemaUrl ? resource.schemaUrl : undefined;
    out.text(`${firstResource ? '' : ','}{"resource":{"attributes":${attributesJson(resource.attributes)},"droppedAttributesCount":0${optional('schemaUrl', schemaUrl)}},"scopeSpans":[`);
    firstResource = false;
    let firstScope = true;
    for (const group of scopes.values()) {
      const scope = group[0]!.instrumentationScope;
      out.text(`${firstScope ? '' : ','}{"scope":${scopeJson(scope)},"spans":[`);
      firstScope = false;
      for (let i = 0; i < group.length; i++) {
        if (i > 0) out.byte(COMMA);
        writeSpan(out, group[i]!);
      }
      out.text(`]${optional('schemaUrl', scope.schemaUrl)}}`);
    }
    out.text(`]${optional('schemaUrl', schemaUrl)}}`);
  }
  out.text(']}');
  return out.result();
}

/** The transformer's grouping key of a scope; a tracer's spans share one scope object, so it is built once per object. */
const scopeKeys = new WeakMap<object, string>();
function scopeKey(scope: ReadableSpan['instrumentationScope']): string {
  let key = scopeKeys.get(scope);
  if (key === undefined) scopeKeys.set(scope, (key = `${scope.name}@${scope.version || ''}:${scope.schemaUrl || ''}`));
  return key;
}

const COMMA = 0x2c;
const QUOTE = 0x22;

/**
 * A growing byte buffer. A span's own parts are written into it piece by
 * piece (constant pieces copied, ids and times written byte by byte), with
 * no string built per span: a batch of 512 spans made ~5 KB of garbage per
 * traced call before, which in a busy bridge also made the young-generation
 * collections of every request more frequent (bench/README.md).
 */
class ByteWriter {
  private buffer: Buffer;
  private length = 0;

  constructor(estimate: number) {
    this.buffer = Buffer.allocUnsafe(Math.max(estimate, 1024));
  }

  /** Any string, as UTF-8. */
  text(value: string): void {
    this.room(value.length * 3);
    this.length += this.buffer.write(value, this.length);
  }

  /** Bytes, copied. */
  bytes(value: Uint8Array): void {
    this.room(value.length);
    this.buffer.set(value, this.length);
    this.length += value.length;
  }

  byte(value: number): void {
    this.room(1);
    this.buffer[this.length++] = value;
  }

  /**
   * `value` as `JSON.stringify` writes it. Printable ASCII without quotes or
   * backslashes (ids, most names and values) is copied byte by byte; anything
   * else goes through `JSON.stringify`.
   */
  jsonString(value: string): void {
    const n = value.length;
    this.room(n + 2);
    const buffer = this.buffer;
    let at = this.length;
    buffer[at++] = QUOTE;
    for (let i = 0; i < n; i++) {
      const c = value.charCodeAt(i);
      // Nothing is committed until the end: on the slow path the bytes written so far are overwritten.
      if (c < 0x20 || c > 0x7f || c === QUOTE || c === 0x5c) return this.text(JSON.stringify(value));
      buffer[at++] = c;
    }
    buffer[at++] = QUOTE;
    this.length = at;
  }

  /** A non-negative safe integer in decimal, zero-padded to `width` digits. */
  digits(value: number, width: number): void {
    let count = 1;
    for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) count++;
    if (count < width) count = width;
    this.room(count);
    let at = this.length + count;
    for (let rest = value, i = 0; i < count; i++) {
      const next = Math.floor(rest / 10);
      this.buffer[--at] = 0x30 + rest - next * 10;
      rest = next;
    }
    this.length += count;
  }

  /** The bytes written; the buffer is not reused, so no copy. */
  result(): Buffer {
    return this.buffer.subarray(0, this.length);
  }

  private room(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + bytes));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }
}

const utf8 = (text: string) => Buffer.from(text);
const TRACE_ID = utf8('{"traceId":');
const SPAN_ID = utf8(',"spanId":');
const PARENT_SPAN_ID = utf8(',"parentSpanId":');
const NAME = utf8(',"name":');
const KIND = utf8(',"kind":');
const START = utf8(',"startTimeUnixNano":"');
const END = utf8('","endTimeUnixNano":"');
const ATTRIBUTES = utf8('","attributes":[');
const VALUE_END = utf8('}}');

function scopeJson(scope: ReadableSpan['instrumentationScope'] & { attributes?: Record<string, AttributeValue | undefined>; droppedAttributesCount?: number }): string {
  const attributes = scope.attributes && Object.keys(scope.attributes).length > 0 ? `,"attributes":${attributesJson(scope.attributes)},"droppedAttributesCount":${scope.droppedAttributesCount ?? 0}` : '';
  return `{"name":${JSON.stringify(scope.name)}${optional('version', scope.version)}${attributes}}`;
}

function writeSpan(out: ByteWriter, span: ReadableSpan): void {
  const context = span.spanContext();
  const parent = span.parentSpanContext;
  const status = span.status;
  out.bytes(TRACE_ID);
  out.jsonString(context.traceId);
  out.bytes(SPAN_ID);
  out.jsonString(context.spanId);
  if (parent?.spanId) {
    out.bytes(PARENT_SPAN_ID);
    out.jsonString(parent.spanId);
  }
  const traceState = context.traceState?.serialize();
  if (traceState !== undefined) out.text(optional('traceState', traceState));
  out.bytes(NAME);
  out.bytes(cachedString(span.name));
  out.bytes(KIND);
  out.digits(span.kind == null ? 0 : span.kind + 1, 1);
  out.bytes(START);
  const millis = span as Partial<EpochMillisTimes>;
  if (typeof millis.startEpochMs === 'number' && typeof millis.endEpochMs === 'number') {
    writeMillisAsNanos(out, millis.startEpochMs);
    out.bytes(END);
    writeMillisAsNanos(out, millis.endEpochMs);
  } else {
    writeNanos(out, span.startTime[0], span.startTime[1]);
    out.bytes(END);
    writeNanos(out, span.endTime[0], span.endTime[1]);
  }
  out.bytes(ATTRIBUTES);
  writeAttributes(out, span.attributes);
  const plain = span.droppedAttributesCount === 0 && span.events.length === 0 && span.droppedEventsCount === 0 && status.code === STATUS_UNSET && status.message === undefined && span.links.length === 0 && span.droppedLinksCount === 0;
  // What a span of the bridge's usually is after its attributes: one copied piece rather than a dozen.
  if (plain) return out.bytes(plainTail(flags(context, parent?.isRemote)));
  out.text(
    `],"droppedAttributesCount":${numberJson(span.droppedAttributesCount)}` +
      `,"events":[${span.events.map(eventJson).join(',')}],"droppedEventsCount":${numberJson(span.droppedEventsCount)}` +
      `,"status":{"code":${numberJson(status.code)}${optional('message', status.message)}}` +
      `,"links":[${span.links.map(linkJson).join(',')}],"droppedLinksCount":${numberJson(span.droppedLinksCount)}` +
      `,"flags":${flags(context, parent?.isRemote)}}`,
  );
}

/** The end of a span without events, links, drops or status, after its attributes: one per flags value. */
const plainTails = new Map<number, Buffer>();
function plainTail(flags: number): Buffer {
  let tail = plainTails.get(flags);
  if (!tail) plainTails.set(flags, (tail = Buffer.from(`],"droppedAttributesCount":0,"events":[],"droppedEventsCount":0,"status":{"code":0},"links":[],"droppedLinksCount":0,"flags":${flags}}`)));
  return tail;
}

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

/** The UTF-8 JSON of a string that recurs (a span name): escaped and encoded once. */
const strings = new Map<string, Buffer>();
function cachedString(value: string): Buffer {
  let json = strings.get(value);
  if (json === undefined) {
    json = Buffer.from(JSON.stringify(value));
    if (strings.size < 1024) strings.set(value, json);
  }
  return json;
}

/**
 * The UTF-8 JSON of recurring attribute pairs (method, upstream, URL,
 * outcome, tool…), encoded once. Bounded: the first 64 values of each of the
 * first 256 keys; a key whose values never recur (a call id) just fills its
 * 64 slots, and its other string values are written after the key's
 * encoded `{"key":…,"value":{"stringValue":` prefix.
 */
const fragments = new Map<string, Map<unknown, Buffer>>();
const stringPrefixes = new Map<string, Buffer>();
const MAX_CACHED_KEYS = 256;
const MAX_CACHED_VALUES = 64;

function writeAttributes(out: ByteWriter, attributes: Readonly<Record<string, AttributeValue | undefined>>): void {
  let first = true;
  for (const key in attributes) {
    const value = attributes[key];
    if (!first) out.byte(COMMA);
    first = false;
    let byValue = fragments.get(key);
    if (!byValue && fragments.size < MAX_CACHED_KEYS) fragments.set(key, (byValue = new Map<unknown, Buffer>()));
    let fragment = byValue?.get(value);
    if (!fragment && byValue && byValue.size < MAX_CACHED_VALUES && typeof value !== 'object') byValue.set(value, (fragment = Buffer.from(keyValueJson(key, value))));
    if (fragment) {
      out.bytes(fragment);
    } else if (typeof value === 'string' && byValue) {
      let prefix = stringPrefixes.get(key);
      if (!prefix) stringPrefixes.set(key, (prefix = Buffer.from(`{"key":${JSON.stringify(key)},"value":{"stringValue":`)));
      out.bytes(prefix);
      out.jsonString(value);
      out.bytes(VALUE_END);
    } else {
      out.text(keyValueJson(key, value));
    }
  }
}

function attributesJson(attributes: Readonly<Record<string, unknown>>): string {
  return `[${Object.keys(attributes).map((key) => keyValueJson(key, attributes[key])).join(',')}]`;
}

function keyValueJson(key: string, value: unknown): string {
  return `{"key":${JSON.stringify(key)},"value":${anyValueJson(value)}}`;
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
    default:
      break; // bytes, arrays and maps below
  }
  if (value instanceof Uint8Array) return `{"bytesValue":"${Buffer.from(value).toString('base64')}"}`;
  if (Array.isArray(value)) return `{"arrayValue":{"values":[${value.map(anyValueJson).join(',')}]}}`;
  if (typeof value === 'object' && value !== null) return `{"kvlistValue":{"values":${attributesJson(value as Record<string, unknown>)}}}`;
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
 * Nanoseconds since the epoch as a decimal string, as the transformer's
 * BigInt arithmetic writes them: for a well-formed time (whole seconds up to
 * 2^53, 0 ≤ ns < 1e9) that is the seconds and the zero-padded nanoseconds
 * side by side, written as digits without a string in between.
 */
function writeNanos(out: ByteWriter, secondsValue: number, nsValue: number): void {
  const seconds = Math.trunc(secondsValue);
  const ns = Math.trunc(nsValue);
  if (sideBySide(seconds, ns)) {
    out.digits(seconds, 1);
    out.digits(ns, 9);
  } else {
    out.text(nanos([seconds, ns]));
  }
}

/** Epoch milliseconds split as `millisToHrTime` splits them (@opentelemetry/core), then written as writeNanos writes them. */
function writeMillisAsNanos(out: ByteWriter, epochMs: number): void {
  writeNanos(out, Math.trunc(epochMs / 1000), Math.round((epochMs % 1000) * 1e6));
}

/** Nanoseconds since the epoch as a decimal string (events' times), as writeNanos writes them. */
function nanos(time: HrTime): string {
  const seconds = Math.trunc(time[0]);
  const ns = Math.trunc(time[1]);
  if (sideBySide(seconds, ns)) return `${seconds}${String(ns).padStart(9, '0')}`;
  return (BigInt(seconds) * 1_000_000_000n + BigInt(ns)).toString();
}

/** Whole seconds and nanoseconds that the transformer's BigInt sum writes as the two numbers side by side. */
function sideBySide(seconds: number, ns: number): boolean {
  return seconds > 0 && seconds <= Number.MAX_SAFE_INTEGER && ns >= 0 && ns < 1e9;
}
