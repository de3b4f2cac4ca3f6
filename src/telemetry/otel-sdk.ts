/**
 * The tracing facade (tracer.ts) on the OpenTelemetry SDK: the only module
 * that imports `@opentelemetry/*` (pinned by test/unit/layering.test.ts), and
 * it is loaded only when tracing is on (a dynamic import in startTracing).
 *
 * OTLP/HTTP with JSON bodies (otlp-exporter-base, with the bridge's own
 * JSON writer: otlp-json.ts), batched by the SDK's
 * BatchSpanProcessor (`OTEL_BSP_*`), the SDK sampler of `OTEL_TRACES_SAMPLER`,
 * pooled random ids (ids.ts), a resource with `service.name`/`service.version`
 * overridden by `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`. The
 * exporter itself reads `OTEL_EXPORTER_OTLP_[TRACES_]{ENDPOINT,HEADERS,TIMEOUT,
 * COMPRESSION,...}`. No global provider, propagator or context manager is
 * registered: the bridge passes parents explicitly.
 *
 * The spans themselves are this module's `RecordedSpan`, a ReadableSpan the
 * SDK's processor and exporter take as they take their own, rather than the
 * SDK Tracer's spans: with 100 % sampling the SDK Tracer's per-span work
 * (context objects, two attribute sanitising passes, span-metric counters,
 * per-attribute limit checks, a ~30-field span) was a measurable share of a
 * call's CPU (bench/README.md, "Tracing cost"). What the SDK's limits guard
 * against cannot happen here: every attribute is set by the bridge's own call
 * sites (a dozen at most, strings, numbers and booleans).
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, type AttributeValue, type HrTime, type Link, type SpanContext, type SpanStatus } from '@opentelemetry/api';
import { hrTimeDuration, millisToHrTime, parseTraceParent, setGlobalErrorHandler, type InstrumentationScope } from '@opentelemetry/core';
import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import { convertLegacyHttpOptions, createOtlpHttpExportDelegate } from '@opentelemetry/otlp-exporter-base/node-http';
import { JsonTraceSerializer, TraceExporterMetricsHelper, type ISerializer } from '@opentelemetry/otlp-transformer';
import { defaultResource, detectResources, envDetector, resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  SamplingDecision,
  TraceIdRatioBasedSampler,
  type ReadableSpan,
  type Sampler,
  type SamplingResult,
  type SpanProcessor,
  type TimedEvent,
} from '@opentelemetry/sdk-trace';
import { ATTR_ERROR_TYPE, ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { Logger } from '../log.js';
import type { TracingSettings } from './config.js';
import { PooledIdGenerator } from './ids.js';
import { otlpJsonRequest, type EpochMillisTimes } from './otlp-json.js';
import type { Attributes, SpanOptions, TraceSpan, Tracer } from './tracer.js';

const KINDS = { server: SpanKind.SERVER, client: SpanKind.CLIENT, internal: SpanKind.INTERNAL } as const;
const NO_LINKS: Link[] = [];
const NO_EVENTS: TimedEvent[] = [];
const UNSET: SpanStatus = { code: SpanStatusCode.UNSET };

function header(context: SpanContext): string {
  return `00-${context.traceId}-${context.spanId}-${context.traceFlags & TraceFlags.SAMPLED ? '01' : '00'}`;
}

/** What every span of one tracer shares. */
interface Recorder {
  readonly processor: SpanProcessor;
  readonly resource: Resource;
  readonly scope: InstrumentationScope;
}

/**
 * A span's times are a wall-clock anchor plus the monotonic time elapsed
 * since, and a child of a local span shares its parent's anchor (the SDK's
 * AnchoredClock does both): the wall clock has whole milliseconds only, so a
 * child anchored on its own could start up to 1 ms after, or end after, its
 * parent on the timeline. The anchor is the wall clock minus the monotonic
 * clock read at one moment: a span's epoch time is `anchor + performance.now()`.
 */
type ClockAnchor = number;

/**
 * A sampled span: recorded here, ended into the batch processor. Its times
 * are kept as epoch milliseconds, which the writer (otlp-json.ts) reads as
 * such (EpochMillisTimes); the ReadableSpan's HrTime getters split them as the
 * SDK's `millisToHrTime` does, for any other reader.
 */
class RecordedSpan implements ReadableSpan, TraceSpan, EpochMillisTimes {
  readonly startEpochMs: number;
  endEpochMs = Number.NaN;
  status: SpanStatus = UNSET;
  events: TimedEvent[] = NO_EVENTS;
  ended = false;
  readonly anchor: ClockAnchor;
  private parentHeader: string | undefined;

  constructor(
    private readonly recorder: Recorder,
    public name: string,
    readonly kind: SpanKind,
    private readonly context: SpanContext,
    readonly parentSpanContext: SpanContext | undefined,
    readonly attributes: Record<string, AttributeValue>,
    anchor: ClockAnchor | undefined,
  ) {
    const now = performance.now();
    this.anchor = anchor ?? Date.now() - now;
    this.startEpochMs = this.anchor + now;
  }

  // What every span has alike is read from the prototype (getters), not held by each span: a smaller object per span.
  get recording(): true {
    return true;
  }

  get links(): Link[] {
    return NO_LINKS;
  }

  get droppedAttributesCount(): number {
    return 0;
  }

  get droppedEventsCount(): number {
    return 0;
  }

  get droppedLinksCount(): number {
    return 0;
  }

  get resource(): Resource {
    return this.recorder.resource;
  }

  get instrumentationScope(): InstrumentationScope {
    return this.recorder.scope;
  }

  get startTime(): HrTime {
    return millisToHrTime(this.startEpochMs);
  }

  /** [0, 0] until the span ends. */
  get endTime(): HrTime {
    return this.ended ? millisToHrTime(this.endEpochMs) : [0, 0];
  }

  spanContext(): SpanContext {
    return this.context;
  }

  get duration(): HrTime {
    return hrTimeDuration(this.startTime, this.endTime);
  }

  get traceparent(): string {
    return (this.parentHeader ??= header(this.context));
  }

  get traceId(): string {
    return this.context.traceId;
  }

  get spanId(): string {
    return this.context.spanId;
  }

  set(attributes: Attributes): void {
    if (this.ended) return;
    for (const key in attributes) {
      const value = attributes[key];
      if (value !== undefined) this.attributes[key] = value;
    }
  }

  setAttribute(key: string, value: string | number | boolean): void {
    if (!this.ended) this.attributes[key] = value;
  }

  rename(name: string): void {
    if (!this.ended) this.name = name;
  }

  event(name: string, attributes?: Attributes): void {
    if (this.ended) return;
    if (this.events === NO_EVENTS) this.events = [];
    this.events.push({ name, time: millisToHrTime(this.nowEpochMs()), attributes: attributes ? defined(attributes) : {}, droppedAttributesCount: 0 });
  }

  fail(errorType: string): void {
    if (this.ended) return;
    this.attributes[ATTR_ERROR_TYPE] = errorType;
    this.status = { code: SpanStatusCode.ERROR, message: errorType };
  }

  end(): void {
    if (this.ended) return;
    this.endEpochMs = this.nowEpochMs();
    this.ended = true;
    this.recorder.processor.onEnd(this);
  }

  /** This span's clock: its anchor plus the monotonic time (ClockAnchor). */
  private nowEpochMs(): number {
    return this.anchor + performance.now();
  }
}

/** A span the sampler dropped: not recorded, but its context still propagates (flags 00 downstream). */
class UnsampledSpan implements TraceSpan {
  readonly recording = false;
  readonly traceparent: string;

  constructor(readonly context: SpanContext) {
    this.traceparent = header(context);
  }

  get traceId(): string {
    return this.context.traceId;
  }

  get spanId(): string {
    return this.context.spanId;
  }

  set(): void {}
  setAttribute(): void {}
  rename(): void {}
  event(): void {}
  fail(): void {}
  end(): void {}
}

function defined(attributes: Attributes): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const key in attributes) {
    const value = attributes[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

function samplerFor(settings: TracingSettings): Sampler {
  const ratio = new TraceIdRatioBasedSampler(settings.ratio);
  switch (settings.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio;
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** The parent's context: a span of ours, or a peer's W3C header (the SDK's own parser; invalid ones start a new trace). */
function parentContext(parent: SpanOptions['parent']): SpanContext | undefined {
  if (parent instanceof RecordedSpan) return parent.spanContext();
  if (parent instanceof UnsampledSpan) return parent.context;
  if (typeof parent === 'string') {
    const remote = parseTraceParent(parent.trim().toLowerCase());
    if (remote) return { ...remote, isRemote: true };
  }
  return undefined;
}

const SAMPLED: SamplingResult = { decision: SamplingDecision.RECORD_AND_SAMPLED };
const NOT_SAMPLED: SamplingResult = { decision: SamplingDecision.NOT_RECORD };

/**
 * What the SDK's ParentBasedSampler decides for a span with a parent, as
 * samplerFor builds it (a root sampler only, so the SDK's default parent
 * samplers: AlwaysOn for a sampled parent, AlwaysOff for an unsampled one,
 * local or remote alike): the parent's sampled flag. Decided here because
 * asking the SDK's sampler needs the parent wrapped in a Context, a Map copy
 * per child span that was the largest part of starting one. otel-sdk.test.ts
 * checks this against the SDK's sampler.
 */
export function parentBasedDecision(parent: SpanContext): SamplingResult {
  return parent.traceFlags & TraceFlags.SAMPLED ? SAMPLED : NOT_SAMPLED;
}

class OtelTracerFacade implements Tracer {
  readonly enabled = true;
  private readonly ids = new PooledIdGenerator();
  /** A parent-based sampler (samplerFor's) with a parent decides from the parent's flag alone (parentBasedDecision). */
  private readonly parentBased: boolean;

  constructor(
    private readonly recorder: Recorder,
    private readonly sampler: Sampler,
  ) {
    this.parentBased = sampler instanceof ParentBasedSampler;
  }

  start(name: string, options: SpanOptions): TraceSpan {
    const parent = parentContext(options.parent);
    const traceId = parent ? parent.traceId : this.ids.generateTraceId();
    const kind = KINDS[options.kind];
    const attributes = options.attributes ? defined(options.attributes) : {};
    // A sampler may add attributes or a trace state.
    const sampling = parent && this.parentBased ? parentBasedDecision(parent) : this.sampler.shouldSample(ROOT_CONTEXT, traceId, name, kind, attributes, NO_LINKS);
    const traceState = sampling.traceState ?? parent?.traceState;
    const sampled = sampling.decision === SamplingDecision.RECORD_AND_SAMPLED;
    const context: SpanContext = { traceId, spanId: this.ids.generateSpanId(), traceFlags: sampled ? TraceFlags.SAMPLED : TraceFlags.NONE, traceState };
    if (sampling.decision === SamplingDecision.NOT_RECORD) return new UnsampledSpan(context);
    if (sampling.attributes) Object.assign(attributes, defined(sampling.attributes as Attributes));
    return new RecordedSpan(this.recorder, name, kind, context, parent, attributes, options.parent instanceof RecordedSpan ? options.parent.anchor : undefined);
  }

  async shutdown(): Promise<void> {
    await this.recorder.processor.shutdown();
  }
}

/**
 * The OTLP/HTTP JSON span exporter, built as exporter-trace-otlp-http's
 * `OTLPTraceExporter` builds itself (the library's configuration from
 * `OTEL_EXPORTER_OTLP_*`, transport, retries and bounded queue), with the
 * bridge's writer (otlp-json.ts) in place of the transformer's: the same
 * bytes, 7.9 µs per traced call in the bridge against 14.6 µs.
 */
function otlpHttpJsonExporter(): OTLPExporterBase<ReadableSpan[]> {
  const serializer: ISerializer<ReadableSpan[], unknown> = {
    serializeRequest: (spans) => otlpJsonRequest(spans),
    deserializeResponse: (data) => JsonTraceSerializer.deserializeResponse(data),
  };
  const options = convertLegacyHttpOptions({}, 'TRACES', 'v1/traces', { 'Content-Type': 'application/json' });
  return new OTLPExporterBase(createOtlpHttpExportDelegate(options, serializer, 'otlp_http_span_exporter', TraceExporterMetricsHelper, undefined));
}

export function createOtelTracer(settings: TracingSettings, serviceVersion: string, log: Logger): Tracer {
  // Export failures (collector down, 4xx) are reported here rather than thrown into the bridge.
  setGlobalErrorHandler((error) => log.warn({ err: error instanceof Error ? error.message : String(error) }, 'OpenTelemetry: trace export failed'));
  const resource = defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName, [ATTR_SERVICE_VERSION]: serviceVersion }))
    .merge(detectResources({ detectors: [envDetector] }));
  const processor = new BatchSpanProcessor({ exporter: otlpHttpJsonExporter(), ...settings.batch });
  return new OtelTracerFacade({ processor, resource, scope: { name: 'mcp-oxp-bridge', version: serviceVersion } }, samplerFor(settings));
}

