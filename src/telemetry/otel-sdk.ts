/**
 * The tracing facade (tracer.ts) on the OpenTelemetry SDK: the only module
 * that imports `@opentelemetry/*` (pinned by test/unit/layering.test.ts), and
 * it is loaded only when tracing is on (a dynamic import in startTracing).
 *
 * OTLP/HTTP with JSON bodies (exporter-trace-otlp-http), batched
 * (`OTEL_BSP_*`), the sampler of `OTEL_TRACES_SAMPLER`, a resource with
 * `service.name`/`service.version` overridden by `OTEL_SERVICE_NAME` and
 * `OTEL_RESOURCE_ATTRIBUTES`. The exporter itself reads
 * `OTEL_EXPORTER_OTLP_[TRACES_]{ENDPOINT,HEADERS,TIMEOUT,COMPRESSION,...}`.
 * No global provider, propagator or context manager is registered: the
 * bridge passes parents explicitly.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace, type Span, type Tracer as OtelTracer } from '@opentelemetry/api';
import { parseTraceParent, setGlobalErrorHandler } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
} from '@opentelemetry/sdk-trace';
import { ATTR_ERROR_TYPE, ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { Logger } from '../log.js';
import type { TracingSettings } from './config.js';
import type { Attributes, SpanOptions, TraceSpan, Tracer } from './tracer.js';

const KINDS = { server: SpanKind.SERVER, client: SpanKind.CLIENT, internal: SpanKind.INTERNAL } as const;

class OtelSpan implements TraceSpan {
  private parentHeader: string | undefined;

  constructor(readonly inner: Span) {}

  get recording(): boolean {
    return this.inner.isRecording();
  }

  get traceparent(): string {
    if (this.parentHeader === undefined) {
      const { traceId, spanId, traceFlags } = this.inner.spanContext();
      this.parentHeader = `00-${traceId}-${spanId}-${traceFlags & TraceFlags.SAMPLED ? '01' : '00'}`;
    }
    return this.parentHeader;
  }

  get traceId(): string {
    return this.inner.spanContext().traceId;
  }

  get spanId(): string {
    return this.inner.spanContext().spanId;
  }

  set(attributes: Attributes): void {
    for (const key in attributes) {
      const value = attributes[key];
      if (value !== undefined) this.inner.setAttribute(key, value);
    }
  }

  rename(name: string): void {
    this.inner.updateName(name);
  }

  event(name: string, attributes?: Attributes): void {
    this.inner.addEvent(name, attributes ? (defined(attributes) as Record<string, string | number | boolean>) : undefined);
  }

  fail(errorType: string): void {
    this.inner.setAttribute(ATTR_ERROR_TYPE, errorType);
    this.inner.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
  }

  end(): void {
    this.inner.end();
  }
}

function defined(attributes: Attributes): Attributes {
  const out: Attributes = {};
  for (const key in attributes) if (attributes[key] !== undefined) out[key] = attributes[key];
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

class OtelTracerFacade implements Tracer {
  readonly enabled = true;

  constructor(
    private readonly provider: TracerProvider,
    private readonly otel: OtelTracer,
  ) {}

  start(name: string, options: SpanOptions): TraceSpan {
    const parent = options.parent;
    let ctx = ROOT_CONTEXT;
    if (parent instanceof OtelSpan) ctx = trace.setSpan(ROOT_CONTEXT, parent.inner);
    else if (typeof parent === 'string') {
      // A peer's header: parsed by the SDK's own W3C parser (invalid ones start a new trace).
      const remote = parseTraceParent(parent.trim().toLowerCase());
      if (remote) ctx = trace.setSpanContext(ROOT_CONTEXT, { ...remote, isRemote: true });
    }
    const inner = this.otel.startSpan(name, { kind: KINDS[options.kind], ...(options.attributes ? { attributes: defined(options.attributes) as Record<string, string | number | boolean> } : {}) }, ctx);
    return new OtelSpan(inner);
  }

  async shutdown(): Promise<void> {
    await this.provider.shutdown();
  }
}

export function createOtelTracer(settings: TracingSettings, serviceVersion: string, log: Logger): Tracer {
  // Export failures (collector down, 4xx) are reported here rather than thrown into the bridge.
  setGlobalErrorHandler((error) => log.warn({ err: error instanceof Error ? error.message : String(error) }, 'OpenTelemetry: trace export failed'));
  const resource = defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName, [ATTR_SERVICE_VERSION]: serviceVersion }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new TracerProvider({
    resource,
    sampler: samplerFor(settings),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter(), ...settings.batch })],
  });
  return new OtelTracerFacade(provider, provider.getTracer('mcp-oxp-bridge', serviceVersion));
}
