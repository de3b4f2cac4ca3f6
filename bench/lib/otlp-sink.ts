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

/** A bridge's environment for tracing every call to `sinkUrl` (batches flushed at least every second). */
export function tracedEnv(sinkUrl: string): Record<string, string> {
  return { OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl, OTEL_TRACES_SAMPLER: 'always_on', OTEL_BSP_SCHEDULE_DELAY: '1000' };
}
