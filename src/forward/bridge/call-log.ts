/**
 * The forward direction's part of the per-call log line (the gate writes the line, calls/gate.ts): its level for
 * the outcome, and what the upstream exchange adds (attempts, `can_retry`, the upstream's detail and status; the
 * upstream's `developer_message` only on a debug line of its own, never at info).
 */
import type { CallLogLevel } from '../../calls/gate.js';
import { OUTCOMES, type CallOutcome } from '../../core/call-outcomes.js';
import type { OxpCallOutcome } from '../../core/oxp-wire.js';
import type { Logger } from '../../platform/log.js';
import type { LineFields } from '../../platform/log-line.js';

/** What the upstream answered the call's last attempt, and after how many attempts. */
export interface UpstreamRun {
  outcome: OxpCallOutcome;
  attempts: number;
}

/** A failed call (the upstream, the tool's code or the bridge failed: core/call-outcomes.ts) is a warning. */
export function callLogLevel(outcome: CallOutcome): CallLogLevel {
  return OUTCOMES[outcome].failed !== undefined ? 'warn' : 'info';
}

/** Adds the upstream exchange's fields to the line; returns its message. */
export function upstreamFields(line: LineFields, run: UpstreamRun | undefined): string {
  if (run === undefined) return 'tool call';
  if (run.attempts !== 1) line.number('attempts', run.attempts);
  const { outcome } = run;
  if (outcome.kind === 'tool_error') line.flag('can_retry', outcome.error.canRetry);
  if (OUTCOMES[outcome.kind].failed === undefined) return 'tool call';
  if ('detail' in outcome) line.text('detail', outcome.detail);
  if ('status' in outcome) line.number('status', outcome.status);
  return 'tool call failed upstream';
}

/** The upstream's own words about a tool error, at debug only. */
export function upstreamDetail(log: Logger, run: UpstreamRun | undefined, callLog: { logger(): Logger } | undefined): void {
  const outcome = run?.outcome;
  if (!outcome || !callLog) return;
  const message = outcome.kind === 'tool_error' ? outcome.error.developerMessage : 'developerMessage' in outcome ? outcome.developerMessage : undefined;
  if (message) callLog.logger().debug({ developer_message: message }, 'tool error detail');
}
