/**
 * Runs one logical tool call against the upstream: circuit breaker first,
 * then attempts with backoff per the retry policy, all within one overall
 * deadline, every attempt with the same `call_id`. Cancellation (the MCP
 * client's) aborts the attempt in flight and any backoff wait.
 */
import { CircuitBreaker } from '../core/circuit-breaker.js';
import type { OxpCallOutcome } from '../core/oxp-wire.js';
import { nextDelayMs, type RetryPolicy } from '../core/retry-policy.js';
import type { OxpCallRequest, OxpClient } from '../oxp-client/client.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';

export interface CallRunResult {
  outcome: OxpCallOutcome;
  attempts: number;
}

export class CallRunner {
  constructor(
    readonly client: OxpClient,
    private readonly policy: RetryPolicy,
    readonly breaker: CircuitBreaker,
    private readonly callTimeoutMs: number,
    private readonly upstream = 'default',
    private readonly metrics?: Metrics,
  ) {}

  async run(call: OxpCallRequest, log: () => Logger, signal?: AbortSignal): Promise<CallRunResult> {
    const deadline = Date.now() + this.callTimeoutMs;
    for (let attempt = 1; ; attempt++) {
      if (!this.breaker.tryAcquire()) return { outcome: { kind: 'circuit_open', retryAfterMs: this.breaker.retryAfterMs }, attempts: attempt - 1 };
      let outcome: OxpCallOutcome;
      const started = performance.now();
      try {
        outcome = await this.client.callTool(call, signal, Math.max(1, deadline - Date.now()));
      } catch (error) {
        this.breaker.release();
        throw error;
      }
      this.metrics?.upstreamLatency.observe({ upstream: this.upstream, outcome: outcome.kind }, (performance.now() - started) / 1000);
      this.breaker.record(outcome);
      const delay = nextDelayMs(outcome, attempt, this.policy);
      if (delay === null || Date.now() + delay >= deadline) return { outcome, attempts: attempt };
      this.metrics?.retries.inc({ upstream: this.upstream, reason: outcome.kind });
      log().info({ attempt, delay_ms: delay, outcome: outcome.kind, ...('status' in outcome ? { status: outcome.status } : {}) }, 'retrying tool call');
      await sleep(delay, signal);
    }
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
