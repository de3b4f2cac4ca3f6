/**
 * Runs one logical tool call against the upstream: circuit breaker first,
 * then attempts with backoff per the retry policy, all within one overall
 * deadline, every attempt with the same `call_id`. Cancellation (the MCP
 * client's) aborts the attempt in flight and any backoff wait.
 */
import type { CallSignal } from '../../platform/shared/call-signal.js';
import { CircuitBreaker } from '../../core/circuit-breaker.js';
import type { OxpCallOutcome } from '../../core/oxp-wire.js';
import { nextDelayMs, type RetryPolicy } from '../../core/retry-policy.js';
import type { OxpCallRequest, OxpClient } from '../client/client.js';
import type { Logger } from '../../platform/log.js';
import type { Metrics } from '../../platform/metrics.js';
import { ATTR, publicUrl } from '../../platform/telemetry/attributes.js';
import { NOOP_SPAN, tracer, type Attributes, type TraceSpan } from '../../platform/telemetry/tracer.js';

/** Where a call's lines beside its own log line go: its logger, with its ids bound (made when first asked for). */
export interface CallLog {
  logger(): Logger;
}

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

  /**
   * `parent`: the MCP request's span; each attempt is a client span under it, retries and circuit refusals are its
   * events. `deadlineMs`: the whole call's deadline (the tool's own, or a task's), else the upstream's callTimeoutMs.
   */
  async run(call: OxpCallRequest, log: CallLog, signal?: CallSignal, parent?: TraceSpan, deadlineMs = this.callTimeoutMs): Promise<CallRunResult> {
    const deadline = Date.now() + deadlineMs;
    for (let attempt = 1; ; attempt++) {
      if (!this.breaker.tryAcquire()) {
        if (parent?.recording) parent.event('circuit_open', { [ATTR.upstream]: this.upstream, [ATTR.attempt]: attempt });
        return { outcome: { kind: 'circuit_open', retryAfterMs: this.breaker.retryAfterMs }, attempts: attempt - 1 };
      }
      let outcome: OxpCallOutcome;
      const started = performance.now();
      // Tracing off: no options object per attempt for the no-op tracer to ignore.
      const spans = tracer();
      const span = spans.enabled ? spans.start('POST /tools/call', { kind: 'client', parent }) : NOOP_SPAN;
      try {
        // The attempt's own span is the upstream's parent (W3C `traceparent` header); trace_id stays the call's.
        outcome = await this.client.callTool(call, signal, Math.max(1, deadline - Date.now()), span.traceparent);
      } catch (error) {
        this.breaker.release();
        if (span.recording) this.attemptAttributes(span, call, attempt, 'cancelled');
        span.fail('cancelled');
        span.end();
        throw error;
      }
      this.metrics?.observeAttempt(this.upstream, outcome.kind, (performance.now() - started) / 1000);
      this.breaker.record(outcome);
      if (span.recording) this.endAttempt(span, call, attempt, outcome);
      span.end();
      const delay = nextDelayMs(outcome, attempt, this.policy);
      if (delay === null || Date.now() + delay >= deadline) return { outcome, attempts: attempt };
      this.metrics?.retries.inc({ upstream: this.upstream, reason: outcome.kind });
      if (parent?.recording) parent.event('retry', { [ATTR.attempt]: attempt + 1, 'mcp_oxp_bridge.retry.delay_ms': delay, [ATTR.outcome]: outcome.kind });
      log.logger().info({ attempt, delay_ms: delay, outcome: outcome.kind, ...('status' in outcome ? { status: outcome.status } : {}) }, 'retrying tool call');
      await sleep(delay, signal);
    }
  }

  /** The upstream's attributes, the same for every attempt: built once, copied into each span. */
  private target: Attributes | undefined;

  /** Set one by one (no object spread or literal per attempt: measured, bench/README.md "Tracing cost"). */
  private attemptAttributes(span: TraceSpan, call: OxpCallRequest, attempt: number, outcome: string): void {
    if (!this.target) {
      const url = publicUrl(`${this.client.baseUrl}/tools/call`);
      const target: Attributes = {};
      target[ATTR.httpMethod] = 'POST';
      target[ATTR.upstream] = this.upstream;
      if (url) {
        target[ATTR.urlFull] = url.full;
        target[ATTR.serverAddress] = url.address;
        target[ATTR.serverPort] = url.port;
      }
      this.target = target;
    }
    span.set(this.target);
    span.setAttribute(ATTR.toolName, call.toolId);
    span.setAttribute(ATTR.toolCallId, call.callId);
    span.setAttribute(ATTR.attempt, attempt);
    span.setAttribute(ATTR.outcome, outcome);
  }

  /** What the attempt came to, in the bridge's words (the upstream's text stays out), and the circuit after it. */
  private endAttempt(span: TraceSpan, call: OxpCallRequest, attempt: number, outcome: OxpCallOutcome): void {
    this.attemptAttributes(span, call, attempt, outcome.kind);
    span.setAttribute(ATTR.circuit, this.breaker.state);
    if ('status' in outcome && typeof outcome.status === 'number' && outcome.status > 0) span.setAttribute(ATTR.httpStatus, outcome.status);
    else if (outcome.kind === 'success' || outcome.kind === 'tool_error') span.setAttribute(ATTR.httpStatus, 200);
    if (outcome.kind !== 'success' && outcome.kind !== 'tool_error') span.fail(outcome.kind);
  }
}

/** Rejects with the signal's reason as it is (an AbortSignal's may be anything), as the call's cancellation does. */
function sleep(ms: number, signal: CallSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
