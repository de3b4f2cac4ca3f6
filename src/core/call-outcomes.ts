/**
 * What a tool call came to, in one closed set of words (either direction, tasks included): the label of the metrics,
 * the per-call log line's `outcome`, the audit record's, the console's. Each reader takes its words from here —
 * the audit trail's decision and who failed (the console's error rate, the log line's level) from `OUTCOMES`,
 * doctor's hints from its own table keyed by `CallOutcome` — so an outcome added here is a compile error wherever it
 * is not yet handled, and an outcome used anywhere is one that is listed here.
 */
import type { OxpCallOutcome } from './oxp-wire.js';

/** How the OXP exchange ended (forward): the upstream's answer, classified (core/oxp-wire.ts). */
type UpstreamOutcome = OxpCallOutcome['kind'];

/** The gate's refusals: the access policy's, a limit's. */
type GateOutcome = 'denied' | 'rate_limited' | 'too_many_in_flight' | 'store_unavailable';

/** Forward: what the bridge answered without an upstream answer of its own to pass on. */
type BridgeOutcome =
  | 'catalog_unavailable'
  | 'upstream_auth_failed'
  | 'invalid_params'
  | 'token_exchange_refused'
  | 'token_exchange_unavailable'
  | 'authorization_declined'
  | 'unsafe_authorization_link'
  | 'input_required'
  | 'url_elicitation_required';

/**
 * A call that got no answer: `cancelled` only when its caller cancelled it (or went away); a task's call stopped by
 * something else says what (another replica took the task over, it expired, the bridge shut down).
 */
export type UnansweredOutcome = 'cancelled' | 'internal_error' | 'lease_lost' | 'expired' | 'shutdown';

/** Forward: a call opened for a task that could not be made (no room for another task, the task store down). */
type TaskRefusedOutcome = 'too_many_tasks' | 'task_store_unavailable';

/** Reverse: a body the OXP face refused before any tool ran (no such tool id, a malformed call, missing context: 400). */
type FaceOutcome = 'refused';

export type CallOutcome = UpstreamOutcome | GateOutcome | BridgeOutcome | UnansweredOutcome | TaskRefusedOutcome | FaceOutcome;

/** `allowed`: the call ran, or was refused for other reasons (its outcome says); `denied`: a rule refused it; `limited`: a limit did. */
export type CallDecisionKind = 'allowed' | 'denied' | 'limited';

export interface OutcomeFacts {
  /** The audit record's `decision`. */
  decision: CallDecisionKind;
  /**
   * Who failed, when the call failed for other reasons than its caller's input or the tool's own reported error:
   * `upstream`, the tool server or the way to it (the console counts it in the upstream's error rate); `tool`, the
   * tool's code crashed on its server; `bridge`, the bridge itself. The forward log line is a warning for each.
   */
  failed?: 'upstream' | 'tool' | 'bridge';
  /** The `kind` a client reads in the forward result's `_meta` error, where it is not the outcome's own word. */
  errorKind?: string;
}

const ALLOWED: OutcomeFacts = { decision: 'allowed' };
const LIMITED: OutcomeFacts = { decision: 'limited' };
const UPSTREAM_FAILED: OutcomeFacts = { decision: 'allowed', failed: 'upstream' };

export const OUTCOMES: Readonly<Record<CallOutcome, OutcomeFacts>> = {
  success: ALLOWED,
  tool_error: ALLOWED,
  invalid_input: ALLOWED,
  unknown_tool: ALLOWED,
  requirements_missing: ALLOWED,
  precondition_failed: ALLOWED,
  auth_failed: { ...UPSTREAM_FAILED, errorKind: 'upstream_auth_failed' },
  tool_crashed: { decision: 'allowed', failed: 'tool' },
  unavailable: { ...UPSTREAM_FAILED, errorKind: 'upstream_unavailable' },
  protocol_error: { ...UPSTREAM_FAILED, errorKind: 'upstream_protocol_error' },
  unreachable: { ...UPSTREAM_FAILED, errorKind: 'upstream_unreachable' },
  timeout: { ...UPSTREAM_FAILED, errorKind: 'upstream_timeout' },
  circuit_open: UPSTREAM_FAILED,
  denied: { decision: 'denied' },
  rate_limited: LIMITED,
  too_many_in_flight: LIMITED,
  store_unavailable: LIMITED,
  // No upstream has listed its tools (or its credentials were refused): the call reached none.
  catalog_unavailable: UPSTREAM_FAILED,
  upstream_auth_failed: UPSTREAM_FAILED,
  invalid_params: ALLOWED,
  token_exchange_refused: ALLOWED,
  token_exchange_unavailable: ALLOWED,
  authorization_declined: ALLOWED,
  unsafe_authorization_link: ALLOWED,
  input_required: ALLOWED,
  url_elicitation_required: ALLOWED,
  cancelled: ALLOWED,
  internal_error: { decision: 'allowed', failed: 'bridge' },
  lease_lost: ALLOWED,
  expired: ALLOWED,
  shutdown: ALLOWED,
  too_many_tasks: ALLOWED,
  task_store_unavailable: ALLOWED,
  refused: ALLOWED,
};

/** The outcomes that say the upstream failed: the console's error rate counts them. */
export function upstreamFailed(outcome: CallOutcome): boolean {
  return OUTCOMES[outcome].failed === 'upstream';
}

const BY_ERROR_KIND = new Map(
  Object.entries(OUTCOMES).flatMap(([outcome, facts]) => (facts.errorKind !== undefined ? [[facts.errorKind, outcome as CallOutcome]] : [])),
);

/** The outcome a forward result's `_meta` error `kind` tells of, if it tells of one (doctor reads a result, not a log). */
export function outcomeOfErrorKind(kind: string): CallOutcome | undefined {
  return BY_ERROR_KIND.get(kind) ?? (Object.hasOwn(OUTCOMES, kind) ? (kind as CallOutcome) : undefined);
}
