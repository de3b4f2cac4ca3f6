/**
 * The bridge's tracing facade: the only tracing API the rest of src/ uses.
 *
 * Off (the default) it is a shared no-op span and tracer: no OpenTelemetry
 * module is loaded, and a call site pays one function call and a property
 * read. On, `startTracing` loads otel-sdk.ts (the only importer of
 * `@opentelemetry/*`) with a dynamic import and swaps the active tracer.
 *
 * Context is passed explicitly (a parent span or a `traceparent` string),
 * not through AsyncLocalStorage: the bridge knows exactly which request each
 * span belongs to, and the hot path stays free of a context manager.
 *
 * What never goes on a span: arguments, results, upstream error text,
 * secrets, tokens. Call sites set names, ids, outcomes and status codes only.
 */
import type { Logger } from '../log.js';
import { tracingDecision } from './tracing-settings.js';

export { TracingConfigError } from './tracing-settings.js';

export type SpanKindName = 'server' | 'client' | 'internal';
export type Attributes = Record<string, string | number | boolean | undefined>;

export interface TraceSpan {
  /** False when tracing is off or the span is not sampled: skip building attributes. */
  readonly recording: boolean;
  /** `traceparent` naming this span as the parent, to send downstream; undefined when tracing is off. */
  readonly traceparent: string | undefined;
  readonly traceId: string | undefined;
  readonly spanId: string | undefined;
  set(attributes: Attributes): void;
  /** One attribute: no object to build per call (the hot call sites use this). */
  setAttribute(key: string, value: string | number | boolean): void;
  /** A better name once known (e.g. `tools/call <tool>` after the tool was found in the catalog). */
  rename(name: string): void;
  event(name: string, attributes?: Attributes): void;
  /** Status ERROR with `error.type`: a word of the bridge's own (an outcome kind), never upstream text. */
  fail(errorType: string): void;
  end(): void;
}

export interface SpanOptions {
  kind: SpanKindName;
  /** The parent: a span of ours, or a W3C `traceparent` received from a peer (invalid ones are ignored). */
  parent?: TraceSpan | string | undefined;
  attributes?: Attributes;
}

export interface Tracer {
  readonly enabled: boolean;
  start(name: string, options: SpanOptions): TraceSpan;
  /** Exports what is queued and stops (bounded by `OTEL_BSP_EXPORT_TIMEOUT`). */
  shutdown(): Promise<void>;
}

export const NOOP_SPAN: TraceSpan = Object.freeze({
  recording: false,
  traceparent: undefined,
  traceId: undefined,
  spanId: undefined,
  set() {},
  setAttribute() {},
  rename() {},
  event() {},
  fail() {},
  end() {},
});

export const NOOP_TRACER: Tracer = Object.freeze({
  enabled: false,
  start: () => NOOP_SPAN,
  shutdown: async () => {},
});

let active: Tracer = NOOP_TRACER;

/** The process's tracer (the no-op one unless startTracing turned tracing on). */
export function tracer(): Tracer {
  return active;
}

/** Log bindings naming a span (`trace_id`, `span_id`), or `fallbackTraceId` alone when tracing is off. */
export function logIds(span: TraceSpan, fallbackTraceId?: string): { trace_id?: string; span_id?: string } {
  if (span.spanId) return { trace_id: span.traceId!, span_id: span.spanId };
  return fallbackTraceId ? { trace_id: fallbackTraceId } : {};
}

/**
 * Reads the `OTEL_*` variables and, when they ask for tracing, loads the
 * OpenTelemetry SDK and makes it the process's tracer. Throws
 * TracingConfigError for a setting the bridge cannot honour (an unknown OTLP
 * protocol): the command reports it as the configuration error it is.
 */
export async function startTracing(env: Record<string, string | undefined>, log: Logger, defaultServiceName: string, serviceVersion: string): Promise<Tracer> {
  const decision = tracingDecision(env, defaultServiceName);
  for (const warning of decision.warnings) log.warn(warning);
  if (!decision.enabled) return NOOP_TRACER;
  const { createOtelTracer } = await import('./otel-sdk.js');
  active = await createOtelTracer(decision.settings, serviceVersion, log);
  const { serviceName, sampler, ratio, endpoint, protocol } = decision.settings;
  log.info({ endpoint, protocol, service_name: serviceName, sampler, ...(sampler.endsWith('ratio') ? { ratio } : {}) }, 'OpenTelemetry tracing on');
  return active;
}

/** For tests in one process: install a tracer (or the no-op one) directly. */
export function setTracer(next: Tracer): void {
  active = next;
}
