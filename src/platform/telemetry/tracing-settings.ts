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
 *
 * The protocol is `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else
 * `OTEL_EXPORTER_OTLP_PROTOCOL`, else `http/protobuf` (the specification's
 * default); `http/json` and `grpc` are the other two; any other value is a
 * TracingConfigError, tracing on or off (unless OTEL_SDK_DISABLED). The
 * exporter of that protocol reads the endpoint, headers, timeout,
 * compression and TLS variables itself.
 */

export type OtlpProtocol = 'http/protobuf' | 'http/json' | 'grpc';

export type SamplerName = 'always_on' | 'always_off' | 'traceidratio' | 'parentbased_always_on' | 'parentbased_always_off' | 'parentbased_traceidratio';

export interface TracingSettings {
  serviceName: string;
  sampler: SamplerName;
  /** For the ratio samplers, in [0, 1]. */
  ratio: number;
  /** BatchSpanProcessor settings (`OTEL_BSP_*`, with the specification's defaults). */
  batch: { scheduledDelayMillis: number; exportTimeoutMillis: number; maxQueueSize: number; maxExportBatchSize: number };
  /** The OTLP transport and encoding: which of the SDK's three trace exporters is loaded. */
  protocol: OtlpProtocol;
  /** Where spans go, for the start-up log line (the exporter reads the endpoint variables itself). */
  endpoint: string;
}

export type TracingDecision = { enabled: false; warnings: string[] } | { enabled: true; settings: TracingSettings; warnings: string[] };

const SAMPLERS = new Set<string>(['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio']);
const PROTOCOLS = new Set<string>(['http/protobuf', 'http/json', 'grpc']);

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
  // Checked whether or not tracing is on: a protocol the bridge cannot use is a mistake to say at start, not later.
  const protocolVariable = get('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = get(protocolVariable)?.toLowerCase() ?? 'http/protobuf';
  if (!PROTOCOLS.has(protocol))
    throw new TracingConfigError(`${protocolVariable}=${get(protocolVariable)} is not an OTLP protocol; use http/protobuf (the default), http/json or grpc`);
  const exporters = get('OTEL_TRACES_EXPORTER')
    ?.toLowerCase()
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const specific = get('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const general = get('OTEL_EXPORTER_OTLP_ENDPOINT');
  if (exporters) {
    const unsupported = exporters.filter((e) => e !== 'otlp' && e !== 'none');
    if (unsupported.length) warnings.push(`OTEL_TRACES_EXPORTER=${unsupported.join(',')} is not supported (only otlp); ignored`);
    if (!exporters.includes('otlp')) return { enabled: false, warnings };
  } else if (!specific && !general) {
    return { enabled: false, warnings };
  }

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
  const settings = { serviceName: get('OTEL_SERVICE_NAME') ?? defaultServiceName, sampler, ratio, batch, protocol: protocol as OtlpProtocol };
  return { enabled: true, warnings, settings: { ...settings, endpoint: withoutCredentials(exportEndpoint(settings.protocol, specific, general)) } };
}

/**
 * Where the exporter will send, by the specification's rules: the traces
 * endpoint as given; over HTTP the general endpoint plus `/v1/traces`; over
 * gRPC the general endpoint as given (the method names the service); else
 * the default port of the protocol on localhost.
 */
function exportEndpoint(protocol: OtlpProtocol, specific: string | undefined, general: string | undefined): string {
  if (specific) return specific;
  if (protocol === 'grpc') return general ?? 'http://localhost:4317';
  return general ? `${general.replace(/\/+$/, '')}/v1/traces` : 'http://localhost:4318/v1/traces';
}

/** The endpoint for a log line: no user info, no query (either may hold a token). */
function withoutCredentials(url: string): string {
  // A gRPC endpoint may be a bare `host:port`.
  if (!url.includes('://')) return url.replace(/^.*@/, '').replace(/[/?#].*$/, '');
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(not a URL)';
  }
}
