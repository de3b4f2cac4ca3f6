/**
 * What a limit is (a token bucket's rate and burst, a cap on requests at once) and what enforcing it answers, in the
 * words every limit of the bridge uses: the call gate's stores (calls/limits/) and the MCP face's per-client
 * admission (forward/face/client-limits.ts). Pure.
 */

export interface LimitSpec {
  /** Sustained requests per minute; 0 = no rate limit. */
  requestsPerMinute: number;
  /** Bucket size: requests that may pass at once above the sustained rate (at least 1 counts). */
  burst: number;
  /** Requests holding a slot at once; 0 = no cap. */
  maxInFlight: number;
}

export interface LimitRefusal {
  ok: false;
  reason: 'rate_limited' | 'too_many_in_flight' | 'store_unavailable';
  retryAfterSeconds: number;
  message: string;
}

/** A refusal made by counting (a store that answered), never 'store_unavailable'. */
export interface CountRefusal extends LimitRefusal {
  reason: 'rate_limited' | 'too_many_in_flight';
}

/** Bucket size: a burst of 0 still lets one request through, as it always has for `http.limits`. */
export const capacityOf = (spec: LimitSpec): number => Math.max(1, spec.burst);

/** Tokens a bucket gains per millisecond. */
export const tokensPerMs = (spec: LimitSpec): number => spec.requestsPerMinute / 60_000;

/** `scope` ends the sentence: ' per client' for http.limits, '' where the caller's key says whose limit it is. */
export function inFlightRefusal(spec: LimitSpec, scope: string, held = 1): CountRefusal {
  return {
    ok: false,
    reason: 'too_many_in_flight',
    retryAfterSeconds: 1,
    message: `Too many concurrent requests: at most ${spec.maxInFlight}${scope}${held > 1 ? ` (this batch holds ${held} more)` : ''}.`,
  };
}

/** `tokens`: what the bucket holds now; `count`: what the refused request needed. */
export function rateRefusal(spec: LimitSpec, scope: string, tokens: number, count = 1): CountRefusal {
  return rateRefusalFor(spec, scope, (Math.min(count, capacityOf(spec)) - tokens) / tokensPerMs(spec), count);
}

/** `waitMs`: until the bucket holds what the refused request needed. */
export function rateRefusalFor(spec: LimitSpec, scope: string, waitMs: number, count = 1): CountRefusal {
  const capacity = capacityOf(spec);
  const message =
    count > capacity
      ? `Rate limit exceeded: a batch of ${count + 1} requests exceeds the burst of ${capacity}${scope}.`
      : `Rate limit exceeded: ${spec.requestsPerMinute} request${spec.requestsPerMinute === 1 ? '' : 's'} per minute${scope}.`;
  return { ok: false, reason: 'rate_limited', retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)), message };
}

/** True when the spec limits nothing: callers skip the store altogether. */
export const limitsNothing = (spec: LimitSpec): boolean => spec.requestsPerMinute <= 0 && spec.maxInFlight <= 0;
