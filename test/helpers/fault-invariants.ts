/**
 * The fault test's verdict, from what was recorded only (pure: no I/O). Issue 37's invariants:
 *
 * 1. every request got exactly one answer (a request in flight on a replica that was SIGKILLed is excused);
 * 2. no refused call or task ran (its nonce never reached the OXP server, then or later);
 * 3. no two connections of one call_id were open at the OXP server at once (and one request, one call_id);
 * 4. every accepted task ended once: completed (with its own result), failed, or cancelled by its caller;
 * 5. no connection refused by a replica still running (straight to it, or nginx's connect to it);
 * 6. no process died (a replica exits only when told, a SIGTERM ends with code 0, no fatal log line).
 *
 * "Running" is from a replica's listening line to the SIGKILL sent to it, or to the end of its drain after SIGTERM
 * (its own log line), or to its exit less EXIT_MARGIN_MS: a process whose drain is over may close its listener on its
 * way out.
 */
import type { CallSpan } from '../fixtures/oxp-fixture-server.js';
import type { ReplicaEvent } from './fault-deployment.js';
import type { Exchange, TaskTrack } from './fault-load.js';

export const EXIT_MARGIN_MS = 300;

/** The invariants' names, in checkInvariants' order (the test names one case after each). */
export const INVARIANTS = [
  'every request got exactly one answer',
  'no refused call or task ran',
  'no two connections of one call_id open at once (one call_id per request)',
  'every accepted task ended once (completed, failed, or cancelled by a caller)',
  'no connection refused by a replica still running',
  'no process died',
] as const;
const REFUSAL_KINDS = new Set(['too_many_in_flight', 'rate_limited', 'store_unavailable', 'task_store_unavailable', 'too_many_tasks']);

export interface Evidence {
  exchanges: readonly Exchange[];
  tasks: readonly TaskTrack[];
  spans: readonly CallSpan[];
  events: readonly ReplicaEvent[];
  /** Each replica's port, by index (nginx names replicas by address). */
  ports: readonly number[];
  nginxErrors: string;
  logs: readonly string[];
}

export interface Verdict {
  name: string;
  checked: number;
  violations: string[];
}

/** Whether a replica was running at `at`, and on until `until` (without a restart between). */
type Up = (replica: number, at: number, until?: number) => boolean;

/** The replica nginx's X-Upstream names last (the one that answered, or failed last); -1 when none. */
function replicaOf(ports: readonly number[], upstream: string | undefined): number {
  const last = upstream?.split(',').at(-1)?.trim();
  return last ? ports.indexOf(Number(last.split(':').at(-1))) : -1;
}

/** Why a call or task was refused (a limit, the task store, a draining replica), or undefined. */
export function refusalOf(exchange: Exchange): string | undefined {
  if ((exchange.kind !== 'plain' && exchange.kind !== 'task') || exchange.answers.length !== 1) return undefined;
  const answer = exchange.answers[0]!;
  const error = answer.error as { data?: { kind?: unknown } } | undefined;
  if (error) {
    const kind = String(error.data?.kind ?? '');
    if (REFUSAL_KINDS.has(kind)) return kind;
    if (exchange.status === 503) return 'shutting_down';
    if (exchange.status === 429) return 'http_limit';
    return undefined;
  }
  const result = answer.result as { isError?: boolean; _meta?: Record<string, { kind?: unknown } | undefined> } | undefined;
  const kind = String(result?._meta?.['mcp-oxp-bridge/error']?.kind ?? '');
  return result?.isError && REFUSAL_KINDS.has(kind) ? kind : undefined;
}

/** Whether `replica` was running from `at` to `until` in one run (see the module comment). */
export function upTimes(events: readonly ReplicaEvent[]): Up {
  const spans = new Map<number, [number, number][]>();
  for (const e of [...events].sort((a, b) => a.at - b.at)) {
    const list = spans.get(e.replica) ?? [];
    spans.set(e.replica, list);
    const open = list.at(-1);
    if (e.what === 'listening') list.push([e.at, Infinity]);
    else if (open && open[1] === Infinity && (e.what === 'sigkill' || e.what === 'drained')) open[1] = e.at;
    else if (open && open[1] === Infinity && e.what === 'exit') open[1] = e.at - EXIT_MARGIN_MS;
  }
  return (replica, at, until = at) => (spans.get(replica) ?? []).some(([from, to]) => at >= from && until < to);
}

/** Whether `replica` was SIGKILLed and still dying at some moment of [from, to]: what was in flight there is lost with it. */
function killedWithin(events: readonly ReplicaEvent[], replica: number, from: number, to: number): boolean {
  const own = events.filter((e) => e.replica === replica).sort((a, b) => a.at - b.at);
  return own.some((kill, i) => {
    if (kill.what !== 'sigkill' || kill.at > to + 50) return false;
    const exit = own.slice(i + 1).find((e) => e.what === 'exit');
    return exit === undefined || exit.at >= from - 50;
  });
}

export function checkInvariants(evidence: Evidence): Verdict[] {
  const up = upTimes(evidence.events);
  const t0 = Math.min(...evidence.exchanges.map((e) => e.start));
  const rel = (t: number | undefined) => (t === undefined ? 'never' : `+${((t - t0) / 1000).toFixed(2)} s`);
  const via = (e: Exchange) => {
    if (e.via !== 'nginx') return `replica ${e.via}`;
    const answering = replicaOf(evidence.ports, e.upstream);
    return answering >= 0 ? `nginx → replica ${answering}` : 'nginx';
  };
  const describe = (e: Exchange) => `#${e.seq} ${e.kind} via ${via(e)} (${rel(e.start)}..${rel(e.end)})`;
  const spansByNonce = groupBy(evidence.spans, (s) => String(s.input?.['nonce'] ?? ''));
  return [
    oneAnswer(evidence, up, describe),
    refusedNeverRan(evidence, spansByNonce, describe, rel),
    noOverlap(evidence.spans, spansByNonce, rel),
    tasksEndedOnce(evidence.tasks, spansByNonce, rel),
    noRefusedConnection(evidence, up, describe),
    noProcessDied(evidence),
  ];
}

function oneAnswer(evidence: Evidence, up: Up, describe: (e: Exchange) => string): Verdict {
  const violations: string[] = [];
  let checked = 0;
  for (const e of evidence.exchanges) {
    if (e.transportError === 'ECONNREFUSED') continue; // never reached anyone: invariant 5's
    checked++;
    if (e.answers.length === 1) continue;
    const replica = e.via === 'nginx' ? replicaOf(evidence.ports, e.upstream) : e.via;
    if (e.answers.length === 0 && replica >= 0 && killedWithin(evidence.events, replica, e.start, e.end ?? Infinity)) continue;
    // nginx's 502 when every replica it tried was down: the deployment had none to offer, not a replica's failure.
    const tried = (e.upstream ?? '').split(',').map((address) => replicaOf(evidence.ports, address));
    if (e.via === 'nginx' && e.status === 502 && tried.length > 0 && tried.every((r) => r >= 0 && !up(r, e.start))) continue;
    const what = e.transportError ? `transport error ${e.transportError}` : `HTTP ${e.status} with ${e.answers.length} JSON-RPC answers`;
    violations.push(`${describe(e)}: ${what}${e.upstream ? ` (nginx tried ${e.upstream})` : ''}`);
  }
  return { name: INVARIANTS[0], checked, violations };
}

function refusedNeverRan(
  evidence: Evidence,
  spansByNonce: Map<string, CallSpan[]>,
  describe: (e: Exchange) => string,
  rel: (t: number | undefined) => string,
): Verdict {
  const violations: string[] = [];
  let checked = 0;
  for (const e of evidence.exchanges) {
    const why = refusalOf(e);
    if (!why) continue;
    checked++;
    for (const span of spansByNonce.get(e.nonce ?? '') ?? [])
      violations.push(`${describe(e)} refused (${why}), yet the OXP server ran it: call_id ${span.callId} open ${rel(span.start)}..${rel(span.end)}`);
  }
  return { name: INVARIANTS[1], checked, violations };
}

function noOverlap(spans: readonly CallSpan[], spansByNonce: Map<string, CallSpan[]>, rel: (t: number | undefined) => string): Verdict {
  const violations: string[] = [];
  const byCallId = groupBy(spans, (s) => s.callId ?? '');
  for (const [callId, list] of byCallId) {
    const sorted = [...list].sort((a, b) => a.start - b.start);
    for (let i = 1; i < sorted.length; i++) {
      const [a, b] = [sorted[i - 1]!, sorted[i]!];
      if (b.start < (a.end ?? Infinity))
        violations.push(`call_id ${callId} (nonce ${String(a.input?.['nonce'])}): open ${rel(a.start)}..${rel(a.end)} and ${rel(b.start)}..${rel(b.end)}`);
    }
  }
  for (const [nonce, list] of spansByNonce) {
    const ids = new Set(list.map((s) => s.callId));
    if (ids.size > 1) violations.push(`nonce ${nonce} reached the OXP server under ${ids.size} call_ids: ${[...ids].join(', ')}`);
  }
  return { name: INVARIANTS[2], checked: byCallId.size, violations };
}

function tasksEndedOnce(tasks: readonly TaskTrack[], spansByNonce: Map<string, CallSpan[]>, rel: (t: number | undefined) => string): Verdict {
  const violations: string[] = [];
  for (const t of tasks) {
    const name = `task ${t.taskId} (nonce ${t.nonce}, created ${rel(t.createdAt)}${t.cancelSentAt ? `, cancel sent ${rel(t.cancelSentAt)}` : ''})`;
    const statuses = t.seen.map((s) => s.status);
    const ends = statuses.filter((s, i) => ['completed', 'failed', 'cancelled'].includes(s) && statuses.indexOf(s) === i);
    const last = statuses.at(-1);
    if (!last || !['completed', 'failed', 'cancelled'].includes(last))
      violations.push(`${name}: never ended (statuses read: ${statuses.join(' → ') || 'none'})`);
    else if (ends.length > 1) violations.push(`${name}: ended more than once (${statuses.join(' → ')})`);
    else if (t.cancelAnswer === 'cancelled' && last !== 'cancelled') violations.push(`${name}: tasks/cancel answered cancelled, then it ended ${last}`);
    else if (last === 'cancelled' && t.cancelSentAt === undefined) violations.push(`${name}: cancelled, but no caller cancelled it`);
    else if (last === 'completed' && !t.resultText?.includes(`done ${t.nonce}`))
      violations.push(`${name}: completed with a result not its own: ${t.resultText}`);
    else if (last === 'completed' && !(spansByNonce.get(t.nonce) ?? []).some((s) => s.answered))
      violations.push(`${name}: completed, but the OXP server never answered its call`);
  }
  return { name: INVARIANTS[3], checked: tasks.length, violations };
}

function noRefusedConnection(evidence: Evidence, up: Up, describe: (e: Exchange) => string): Verdict {
  const violations: string[] = [];
  let checked = 0;
  for (const e of evidence.exchanges) {
    if (e.via === 'nginx' || e.transportError !== 'ECONNREFUSED') continue;
    checked++;
    if (up(e.via, e.start)) violations.push(`${describe(e)}: connection refused by replica ${e.via}, which was running`);
  }
  // nginx tries the next replica when one refuses, so its client never sees it; its error log does (one-second times).
  for (const m of evidence.nginxErrors.matchAll(/^(\d+)\/(\d+)\/(\d+) (\d+):(\d+):(\d+) .*\(111: Connection refused\).*upstream: "http:\/\/[\d.]+:(\d+)\//gm)) {
    checked++;
    const [y, mo, d, h, mi, s, port] = m.slice(1).map(Number) as [number, number, number, number, number, number, number];
    const at = new Date(y, mo - 1, d, h, mi, s).getTime();
    const replica = evidence.ports.indexOf(port);
    // nginx's times have whole seconds: a replica killed and started again within that second may have refused it.
    if (replica >= 0 && up(replica, at, at + 999))
      violations.push(`nginx, ${m[0].slice(0, 19)}: connection refused by replica ${replica}, which was running all that second`);
  }
  return { name: INVARIANTS[4], checked, violations };
}

function noProcessDied(evidence: Evidence): Verdict {
  const violations: string[] = [];
  /** The signal sent to each replica since it last started listening. */
  const signalled = new Map<number, ReplicaEvent['what'] | undefined>();
  for (const e of [...evidence.events].sort((a, b) => a.at - b.at)) {
    const signal = signalled.get(e.replica);
    if (e.what === 'exit' && signal === undefined) violations.push(`replica ${e.replica} exited (${e.code}) though nobody stopped it`);
    if (e.what === 'exit' && signal === 'sigterm' && e.code !== 0)
      violations.push(`replica ${e.replica} ended with ${e.code} after SIGTERM (a drain ends with 0)`);
    if (e.what === 'listening' || e.what === 'exit') signalled.set(e.replica, undefined);
    if (e.what === 'sigkill' || e.what === 'sigterm') signalled.set(e.replica, e.what);
  }
  for (const line of evidence.logs) if (/"level":(60|"fatal")/.test(line)) violations.push(`fatal log line: ${line.slice(0, 300)}`);
  return { name: INVARIANTS[5], checked: evidence.events.length, violations };
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    if (!k) continue;
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}
