/**
 * The tracing facade (tracer.ts) on the OpenTelemetry SDK: the only module
 * that imports `@opentelemetry/*` (pinned by test/architecture/layering.test.ts), and
 * it is loaded only when tracing is on (a dynamic import in startTracing).
 *
 * The SDK's own pipeline: its `TracerProvider` and spans, its
 * `BatchSpanProcessor` (`OTEL_BSP_*`), the sampler of `OTEL_TRACES_SAMPLER`,
 * and the stock OTLP trace exporter of the protocol config.ts chose
 * (`http/protobuf`, `http/json` or `grpc`), imported only when chosen (the
 * gRPC one brings @grpc/grpc-js). Each exporter reads
 * `OTEL_EXPORTER_OTLP_[TRACES_]{ENDPOINT,HEADERS,TIMEOUT,COMPRESSION,...}`
 * itself. Trace context crosses processes through the SDK's W3C propagator.
 * The resource has `service.name`/`service.version`, overridden by
 * `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`. No global provider,
 * propagator or context manager is registered: the bridge passes parents
 * explicitly, so the SDK spans are wrapped, not replaced, by a small adapter
 * to the facade's TraceSpan.
 */
import {
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes as OtelAttributes,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { setGlobalErrorHandler, W3CTraceContextPropagator } from '@opentelemetry/core';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import { ATTR_ERROR_TYPE, ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { Logger } from '../log.js';
import type { OtlpProtocol, TracingSettings } from './tracing-settings.js';
import type { Attributes, SpanOptions, TraceSpan, Tracer } from './tracer.js';

const KINDS = { server: SpanKind.SERVER, client: SpanKind.CLIENT, internal: SpanKind.INTERNAL } as const;
const propagator = new W3CTraceContextPropagator();

/** The facade's view of an SDK span (sampled or not: an unsampled one still carries its context downstream). */
class SpanAdapter implements TraceSpan {
  private header: string | undefined;

  constructor(readonly span: Span) {}

  get recording(): boolean {
    return this.span.isRecording();
  }

  get traceparent(): string | undefined {
    if (this.header === undefined) {
      const carrier: Record<string, string> = {};
      propagator.inject(trace.setSpan(ROOT_CONTEXT, this.span), carrier, defaultTextMapSetter);
      this.header = carrier.traceparent;
    }
    return this.header;
  }

  get traceId(): string {
    return this.span.spanContext().traceId;
  }

  get spanId(): string {
    return this.span.spanContext().spanId;
  }

  // The SDK span skips undefined values and ignores changes once ended.
  set(attributes: Attributes): void {
    this.span.setAttributes(attributes);
  }

  setAttribute(key: string, value: string | number | boolean): void {
    this.span.setAttribute(key, value);
  }

  rename(name: string): void {
    this.span.updateName(name);
  }

  event(name: string, attributes?: Attributes): void {
    this.span.addEvent(name, attributes && defined(attributes));
  }

  fail(errorType: string): void {
    this.span.setAttribute(ATTR_ERROR_TYPE, errorType);
    this.span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
  }

  end(): void {
    this.span.end();
  }
}

/** Without the undefined values (the SDK would drop them too, but with a diagnostic warning each). */
function defined(attributes: Attributes): OtelAttributes {
  const out: OtelAttributes = {};
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
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** The parent: a span of ours, or a peer's W3C `traceparent` (the SDK's propagator; an invalid one starts a new trace). */
function parentContext(parent: SpanOptions['parent']): Context {
  if (parent instanceof SpanAdapter) return trace.setSpan(ROOT_CONTEXT, parent.span);
  if (typeof parent === 'string') return propagator.extract(ROOT_CONTEXT, { traceparent: parent.trim().toLowerCase() }, defaultTextMapGetter);
  return ROOT_CONTEXT;
}

/** The SDK's OTLP trace exporter for `protocol`; each package is loaded only when its protocol is chosen. */
async function exporterFor(protocol: OtlpProtocol): Promise<SpanExporter> {
  switch (protocol) {
    case 'http/protobuf':
      return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
    case 'http/json':
      return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
    case 'grpc':
      return new (await import('@opentelemetry/exporter-trace-otlp-grpc')).OTLPTraceExporter();
  }
}

export async function createOtelTracer(settings: TracingSettings, serviceVersion: string, log: Logger): Promise<Tracer> {
  // Export failures (collector down, 4xx) are reported here rather than thrown into the bridge.
  setGlobalErrorHandler((error) => log.warn({ err: error instanceof Error ? error.message : String(error) }, 'OpenTelemetry: trace export failed'));
  const resource = defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName, [ATTR_SERVICE_VERSION]: serviceVersion }))
    .merge(detectResources({ detectors: [envDetector] }));
  const processor = new BatchSpanProcessor({ exporter: await exporterFor(settings.protocol), ...settings.batch });
  const provider = new TracerProvider({ resource, sampler: samplerFor(settings), spanProcessors: [processor] });
  const tracer = provider.getTracer('mcp-oxp-bridge', serviceVersion);
  return {
    enabled: true,
    start: (name, options) =>
      new SpanAdapter(
        tracer.startSpan(
          name,
          { kind: KINDS[options.kind], ...(options.attributes ? { attributes: defined(options.attributes) } : {}) },
          parentContext(options.parent),
        ),
      ),
    shutdown: () => provider.shutdown(),
  };
}
