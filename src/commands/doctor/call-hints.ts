/**
 * What to do about a failed `doctor --call`, by the outcome the result's `_meta` error `kind` tells of
 * (docs/translation.md's error taxonomy; core/call-outcomes.ts maps a kind to its outcome): only bad arguments are
 * the caller's to fix. One entry per outcome, so an outcome added there is a compile error here until it has its hint
 * (or says it has none).
 */
import { outcomeOfErrorKind, type CallOutcome } from '../../core/call-outcomes.js';
import { ERROR_META_KEY } from '../../core/mcp-wire.js';
import { isPlainObject } from '../../core/json.js';
import { CREDENTIALS_HINT } from './credentials.js';

/** Undefined: the message above says all there is to do. */
const HINTS: Readonly<Record<CallOutcome, string | undefined>> = {
  success: undefined,
  invalid_input: "check the arguments (--args) against the tool's input schema",
  tool_error: 'the tool itself reported the failure (its message is above): act on what it says; the bridge and the tool server work',
  tool_crashed:
    "the tool's code failed on the tool server (HTTP 500): its cause is in the tool server's logs; the bridge and the server's other tools are not affected",
  auth_failed: CREDENTIALS_HINT,
  upstream_auth_failed: CREDENTIALS_HINT,
  unavailable: 'the tool server (or a proxy in front of it) said it is unavailable: check it, then try again',
  unreachable: 'the bridge could not reach the tool server: check that it is running and its URL',
  timeout: 'the tool server did not answer within upstream.callTimeoutMs: check its load, or raise the timeout',
  circuit_open: 'the bridge paused calls after repeated connection failures or timeouts: check the tool server; calls resume on their own',
  protocol_error: 'the tool server answered something that is not OXP: check that the URL is an OXP server',
  requirements_missing: 'the tool needs a secret, user id or authorization the bridge was not given: see the message above',
  precondition_failed: 'the tool server refused the call before running it: see the message above',
  unknown_tool: undefined,
  denied: undefined,
  rate_limited: undefined,
  too_many_in_flight: undefined,
  store_unavailable: undefined,
  catalog_unavailable: undefined,
  invalid_params: undefined,
  token_exchange_refused: undefined,
  token_exchange_unavailable: undefined,
  authorization_declined: undefined,
  unsafe_authorization_link: undefined,
  input_required: undefined,
  url_elicitation_required: undefined,
  cancelled: undefined,
  internal_error: undefined,
  lease_lost: undefined,
  expired: undefined,
  shutdown: undefined,
  too_many_tasks: undefined,
  task_store_unavailable: undefined,
  refused: undefined,
};

export function callFailureHint(meta: unknown): string {
  const error = isPlainObject(meta) ? meta[ERROR_META_KEY] : undefined;
  const kind = isPlainObject(error) && typeof error.kind === 'string' ? error.kind : undefined;
  const outcome = kind === undefined ? undefined : outcomeOfErrorKind(kind);
  return (outcome && HINTS[outcome]) ?? 'see the message above';
}
