/**
 * What the console's Calls view says of each call outcome (core/call-outcomes.ts): whether it shows as a failure
 * (the outcome's `failed`: the upstream, the tool's code or the bridge failed) and, for those that need saying, what
 * it means and what to do. One entry per outcome, so an outcome added to the union is a compile error here until the
 * console has its words. The page (assets/console/console.js) is sent the words of the outcomes it lists with the
 * calls (`GET calls`, `outcomes`); it keeps none of its own.
 */
import { OUTCOMES, type CallOutcome } from '../core/call-outcomes.js';
import type { CallRecorder } from './recorder.js';

/** The parts of an explanation; `upstreams` is rendered as the link to the Upstreams view. */
type Help = readonly string[] | undefined;

const HELP: Readonly<Record<CallOutcome, Help>> = {
  catalog_unavailable: ['No upstream had listed its tools, so the call reached none (an upstream error). See ', 'upstreams', ' for each one’s last error.'],
  upstream_auth_failed: ['Every upstream refused the credentials the bridge lists tools with. Check each upstream’s token (see ', 'upstreams', ').'],
  unreachable: ['The tool server could not be reached (an upstream error). See ', 'upstreams', '.'],
  unavailable: ['The tool server could not run the call now (an upstream error); the client may retry.'],
  timeout: ['The tool server did not answer in time (an upstream error).'],
  protocol_error: ['The tool server’s answer was not valid OXP (an upstream error); the log line at warn has the detail.'],
  auth_failed: ['The tool server refused the bridge’s credentials (an upstream error). Check the upstream’s token.'],
  circuit_open: ['After repeated failures the upstream is not called for a while (its circuit is open); see ', 'upstreams', '.'],
  tool_crashed: ['The tool server failed while running the tool.'],
  tool_error: ['The tool ran and reported an error to the client (not an upstream error).'],
  invalid_input: ['The arguments did not match the tool’s input schema; the client was told which.'],
  invalid_params: ['The request was not a valid tools/call (arguments not an object, or a bad retry).'],
  unknown_tool: ['No tool by that name (or the catalog changed since the client listed it).'],
  denied: ['The access policy does not let this caller call this tool; it was answered as an unknown tool.'],
  rate_limited: ['Over its access rule’s rate limit; the client was told when to retry.'],
  too_many_in_flight: [
    'Over a limit of calls at once (its access rule’s, or the caller’s own, access.maxInFlightPerPrincipal); the client was told when to retry.',
  ],
  requirements_missing: ['The tool needs a secret or a user id the server is not configured with; the warn log line names it.'],
  cancelled: ['The client cancelled the call, or went away, before it was answered.'],
  success: undefined,
  precondition_failed: undefined,
  store_unavailable: undefined,
  token_exchange_refused: undefined,
  token_exchange_unavailable: undefined,
  authorization_declined: undefined,
  unsafe_authorization_link: undefined,
  input_required: undefined,
  url_elicitation_required: undefined,
  internal_error: undefined,
  lease_lost: undefined,
  expired: undefined,
  shutdown: undefined,
  too_many_tasks: undefined,
  task_store_unavailable: undefined,
  refused: undefined,
};

export interface OutcomeWords {
  failed: boolean;
  help?: readonly string[];
}

/** The words of each outcome `seen` (the recorder keeps outcomes as the gate wrote them: outcomes of the union). */
function wordsFor(seen: Iterable<string>): Record<string, OutcomeWords> {
  const words: Record<string, OutcomeWords> = {};
  for (const outcome of seen) {
    if (!Object.hasOwn(OUTCOMES, outcome)) continue;
    const help = HELP[outcome as CallOutcome];
    words[outcome] = { failed: OUTCOMES[outcome as CallOutcome].failed !== undefined, ...(help ? { help } : {}) };
  }
  return words;
}

/** The console API's `calls` answer: the recent calls, each tool's, and the words of every outcome they list. */
export function callsView(recorder: CallRecorder, showArguments: boolean, limit: number) {
  const recent = recorder.recent(limit);
  const tools = recorder.toolStats();
  const seen = new Set([...recent.map((c) => c.outcome), ...tools.flatMap((t) => Object.keys(t.outcomes))]);
  return { showArguments, recent, tools, outcomes: wordsFor(seen) };
}
