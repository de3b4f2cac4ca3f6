/**
 * Load generation with autocannon, plus exact latencies: autocannon's own
 * histogram has 1 ms resolution, too coarse for sub-millisecond targets, so
 * every response time (a float in ms from process.hrtime) is also collected
 * here and percentiles are computed from the raw samples.
 */
import autocannon from 'autocannon';
import type { HttpRequestSpec } from './workload.js';

export interface LoadResult {
  /** Completed 2xx responses per second over the measured window. */
  rps: number;
  requests: number;
  /** Latency percentiles in ms (exact, from every sample). */
  p50: number;
  p99: number;
  mean: number;
  errors: number;
  non2xx: number;
  timeouts: number;
  seconds: number;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

/**
 * Drives `url` with `spec` on `connections` keep-alive connections for `seconds`: as fast as the target answers,
 * or, with `rate`, at that many requests per second in all (the same work for every party, for CPU-per-call
 * comparisons that a party's throughput does not skew).
 */
export function load(url: string, spec: HttpRequestSpec, connections: number, seconds: number, rate?: number): Promise<LoadResult> {
  const target = new URL(spec.path, url).toString();
  let samples = new Float64Array(1 << 16);
  let n = 0;
  let ok = 0;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const instance = autocannon(
      {
        url: target,
        method: spec.method,
        headers: spec.headers,
        body: spec.body,
        connections,
        duration: seconds,
        timeout: 10,
        ...(rate ? { overallRate: rate } : {}),
      },
      (error, result) => {
        if (error) return reject(error);
        const elapsed = result.duration > 0 ? result.duration : (performance.now() - started) / 1000;
        const sorted = samples.subarray(0, n).sort();
        let sum = 0;
        for (let i = 0; i < n; i++) sum += sorted[i]!;
        resolve({
          rps: ok / elapsed,
          requests: ok,
          p50: percentile(sorted, 50),
          p99: percentile(sorted, 99),
          mean: n ? sum / n : NaN,
          errors: result.errors,
          non2xx: result.non2xx,
          timeouts: result.timeouts,
          seconds: elapsed,
        });
      },
    );
    instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
      if (statusCode < 200 || statusCode >= 300) return;
      ok++;
      if (n === samples.length) {
        const bigger = new Float64Array(samples.length * 2);
        bigger.set(samples);
        samples = bigger;
      }
      samples[n++] = responseTime;
    });
  });
}
