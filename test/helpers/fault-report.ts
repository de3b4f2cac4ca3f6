/**
 * The fault test's summary, as printed: what the load was and came to (answers, refusals by kind, errors, tasks by
 * how they ended, calls the OXP server saw), then each invariant with its count of violations and the first few.
 */
import type { CallSpan } from '../fixtures/oxp-fixture-server.js';
import type { Exchange, TaskTrack } from './fault-load.js';
import { refusalOf, type Verdict } from './fault-invariants.js';

/** Violations printed per invariant. */
const FIRST = 5;

export interface Tally {
  requests: Record<string, number>;
  outcomes: Record<string, number>;
  tasks: Record<string, number>;
  oxpCalls: number;
  /** call_ids the OXP server saw more than once (a re-drive sends the same call_id again). */
  resent: number;
}

export function tally(exchanges: readonly Exchange[], tasks: readonly TaskTrack[], spans: readonly CallSpan[], nonces: (nonce: string) => boolean): Tally {
  const requests: Record<string, number> = {};
  const outcomes: Record<string, number> = {};
  for (const e of exchanges) {
    bump(requests, e.kind);
    if (e.kind !== 'plain' && e.kind !== 'task') continue;
    bump(outcomes, outcomeOf(e));
  }
  const taskEnds: Record<string, number> = {};
  for (const t of tasks) {
    const status = t.seen.at(-1)?.status ?? 'unread';
    bump(taskEnds, status === 'failed' ? `failed (${t.statusMessage?.slice(0, 80) ?? 'no message'})` : status);
  }
  const ours = spans.filter((s) => nonces(String(s.input?.['nonce'] ?? '')));
  const perCallId: Record<string, number> = {};
  for (const s of ours) bump(perCallId, s.callId ?? '');
  return { requests, outcomes, tasks: taskEnds, oxpCalls: ours.length, resent: Object.values(perCallId).filter((n) => n > 1).length };
}

function outcomeOf(e: Exchange): string {
  const refused = refusalOf(e);
  if (refused) return `refused ${refused}`;
  if (e.transportError) return `transport ${e.transportError}`;
  if (e.answers.length !== 1) return `HTTP ${e.status} without one answer`;
  const answer = e.answers[0]!;
  const error = answer.error as { code?: number; message?: string } | undefined;
  if (error) return `error ${error.code}: ${String(error.message).slice(0, 60)}`;
  return e.kind === 'task' ? 'task created' : (answer.result as { isError?: boolean }).isError ? 'tool error' : 'answered';
}

export function merge(into: Tally, from: Tally): Tally {
  const add = (a: Record<string, number>, b: Record<string, number>) => {
    for (const [k, v] of Object.entries(b)) a[k] = (a[k] ?? 0) + v;
  };
  add(into.requests, from.requests);
  add(into.outcomes, from.outcomes);
  add(into.tasks, from.tasks);
  into.oxpCalls += from.oxpCalls;
  into.resent += from.resent;
  return into;
}

export function emptyTally(): Tally {
  return { requests: {}, outcomes: {}, tasks: {}, oxpCalls: 0, resent: 0 };
}

export function formatReport(title: string, counts: Tally, verdicts: readonly Verdict[]): string {
  const list = (r: Record<string, number>) =>
    Object.entries(r)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
  const lines = [
    `${title}`,
    `  requests: ${list(counts.requests)}`,
    `  calls and task creations: ${list(counts.outcomes)}`,
    `  accepted tasks, as they ended: ${list(counts.tasks) || 'none'}`,
    `  OXP calls: ${counts.oxpCalls}; call_ids sent more than once (re-drives): ${counts.resent}`,
  ];
  for (const v of verdicts) {
    lines.push(`  ${v.violations.length === 0 ? 'ok  ' : 'FAIL'} ${v.name}: ${v.violations.length} violations of ${v.checked} checked`);
    for (const line of v.violations.slice(0, FIRST)) lines.push(`         ${line}`);
    if (v.violations.length > FIRST) lines.push(`         … and ${v.violations.length - FIRST} more`);
  }
  return lines.join('\n');
}

function bump(r: Record<string, number>, key: string): void {
  r[key] = (r[key] ?? 0) + 1;
}
