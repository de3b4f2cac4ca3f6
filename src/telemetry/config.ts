/**
 * Tracing configuration from the standard OpenTelemetry environment
 * variables. Pure (reads only the `env` object it is given) so the decision
 * "is tracing on?" costs nothing and loads no OpenTelemetry module.
 *
 * Tracing is OFF unless the operator asks for it:
 * - `OTEL_SDK_DISABLED=true` turns it off, whatever else is set;
 * - `OTEL_TRACES_EXPORTER` set: on when it lists `otlp`, off for `none`
 *   (other exporters are not shipped: a warning, and off);
 * - `OTEL_TRACES_EXPORTER` unset: on when `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`
 *   or `OTEL_EXPORTER_OTLP_ENDPOINT` is set (the endpoint is the opt-in; the
 *   SDK default of exporting to localhost:4318 unasked is not followed).
 */

export type SamplerName = 'always_on' | 'always_off' | 'traceidratio' | 'parentbased_always_on' | 'parentbased_always_off' | 'parentbased_traceidratio';

export interface TracingSettings {
  serviceName: string;
  sampler: SamplerName;
  /** For the ratio samplers, in [0, 1]. */
  ratio: number;
  /** BatchSpanProcessor settings (`OTEL_BSP_*`, with the specification's defaults). */
  batch: { scheduledDelayMillis: number; exportTimeoutMillis: number; maxQueueSize: number; maxExportBatchSize: number };
  /** Where spans go, for the start-up log line (the exporter reads the endpoint variables itself). */
  endpoint: string;
}

export type TracingDecision = { enabled: false; warnings: string[] } | { enabled: true; settings: TracingSettings; warnings: string[] };

const SAMPLERS = new Set<string>(['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio']);
const DEFAULT_ENDPOINT = 'http://localhost:4318/v1/traces';

/** A setting the bridge cannot honour and must not silently ignore. */
export class TracingConfigError extends Error {
  override name = 'TracingConfigError';
}

export function tracingDecision(env: Record<string, string | undefined>, defaultServiceName: string): TracingDecision {
  const warnings: string[] = [];
  const get = (name: string) => {
    const value = env[name]?.trim();
    return value ? value : undefined;
  };
  if (get('OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return { enabled: false, warnings };
  const exporters = get('OTEL_TRACES_EXPORTER')?.toLowerCase().split(',').map((e) => e.trim()).filter(Boolean);
  const specific = get('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const general = get('OTEL_EXPORTER_OTLP_ENDPOINT');
  if (exporters) {
    const unsupported = exporters.filter((e) => e !== 'otlp' && e !== 'none');
    if (unsupported.length) warnings.push(`OTEL_TRACES_EXPORTER=${unsupported.join(',')} is not supported (only otlp, over HTTP with JSON); ignored`);
    if (!exporters.includes('otlp')) return { enabled: false, warnings };
  } else if (!specific && !general) {
    return { enabled: false, warnings };
  }

  const protocol = (get('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? get('OTEL_EXPORTER_OTLP_PROTOCOL'))?.toLowerCase();
  if (protocol === 'grpc') throw new TracingConfigError('OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: the bridge exports OTLP over HTTP (JSON); point the endpoint at the collector\'s HTTP port (usually 4318) and unset the protocol or set it to http/json');
  if (protocol && protocol !== 'http/json' && protocol !== 'http/protobuf') throw new TracingConfigError(`OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not a known OTLP protocol; use http/json`);
  if (protocol === 'http/protobuf') warnings.push('OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf: the bridge sends OTLP/HTTP with JSON bodies, which OTLP/HTTP receivers accept as well');

  let sampler = (get('OTEL_TRACES_SAMPLER')?.toLowerCase() ?? 'parentbased_always_on') as SamplerName;
  if (!SAMPLERS.has(sampler)) {
    warnings.push(`OTEL_TRACES_SAMPLER=${sampler} is not supported; using parentbased_always_on`);
    sampler = 'parentbased_always_on';
  }
  let ratio = 1;
  const arg = get('OTEL_TRACES_SAMPLER_ARG');
  if (sampler.endsWith('traceidratio') && arg !== undefined) {
    const parsed = Number(arg);
    if (Number.isFinite(parsed) && parsed >= 0 && parsed <= 1) ratio = parsed;
    else warnings.push(`OTEL_TRACES_SAMPLER_ARG=${arg} is not a ratio in [0, 1]; using 1`);
  }

  const int = (name: string, fallback: number, min: number) => {
    const raw = get(name);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (Number.isInteger(n) && n >= min) return n;
    warnings.push(`${name}=${raw} is not an integer >= ${min}; using ${fallback}`);
    return fallback;
  };
  const maxQueueSize = int('OTEL_BSP_MAX_QUEUE_SIZE', 2048, 1);
  const batch = {
    scheduledDelayMillis: int('OTEL_BSP_SCHEDULE_DELAY', 5000, 0),
    exportTimeoutMillis: int('OTEL_BSP_EXPORT_TIMEOUT', 30000, 1),
    maxQueueSize,
    maxExportBatchSize: Math.min(int('OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 512, 1), maxQueueSize),
  };
  const endpoint = specific ?? (general ? `${general.replace(/\/+$/, '')}/v1/traces` : DEFAULT_ENDPOINT);
  return { enabled: true, warnings, settings: { serviceName: get('OTEL_SERVICE_NAME') ?? defaultServiceName, sampler, ratio, batch, endpoint: withoutCredentials(endpoint) } };
}

/** The endpoint for a log line: no user info, no query (either may hold a token). */
function withoutCredentials(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(not a URL)';
  }
}
