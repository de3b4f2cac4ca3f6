/**
 * The OTLP/HTTP sink of the tracing benches (bench/servers/otlp-sink.ts), in a
 * child process. It used to run in the bench's own process, beside the load
 * generator: each ~450 KB export then took the generator's event loop away
 * from pacing the requests, and `otel-spans.ts` counted the sink's reading as
 * span work.
 */
import { startBenchServer } from './procs.js';

export interface OtlpSink {
  url: string;
  /** Exports received and their bytes so far. */
  stats(): Promise<{ exports: number; spansBytes: number }>;
  close(): Promise<void>;
}

export async function startOtlpSink(): Promise<OtlpSink> {
  const child = await startBenchServer('otlp-sink', 'otlp-sink');
  return {
    url: child.url,
    stats: async () => (await (await fetch(`${child.url}/stats`)).json()) as { exports: number; spansBytes: number },
    close: () => child.stop(),
  };
}

/**
 * A bridge's environment for tracing to `sinkUrl` (batches flushed at least
 * every second): every call (`always_on`) unless another sampler is given
 * (undefined: the bridge's default, `parentbased_always_on`), over the
 * default protocol (http/protobuf) unless `BENCH_OTEL_PROTOCOL` names
 * another HTTP one (the sink reads HTTP only).
 */
export function tracedEnv(sinkUrl: string, sampler: string | undefined = 'always_on'): Record<string, string> {
  const protocol = process.env.BENCH_OTEL_PROTOCOL;
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl,
    OTEL_BSP_SCHEDULE_DELAY: '1000',
    ...(sampler ? { OTEL_TRACES_SAMPLER: sampler } : {}),
    ...(protocol ? { OTEL_EXPORTER_OTLP_PROTOCOL: protocol } : {}),
  };
}
