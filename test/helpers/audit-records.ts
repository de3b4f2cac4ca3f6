/**
 * `node --import audit-records`: stands in for the call path (until it writes audit records itself, issue 26).
 * Once the command has started (its audit sink open, its SIGTERM handler in place), writes AUDIT_RECORDS call records
 * through the sink (allowed, denied and limited in turn; principal `p-BATCH-I`, in a group named with line breaks and
 * terminal controls): all but the last few at once, then, once those are written, the last few, which stay buffered,
 * so only the command's exit or its periodic write can write them out. Then says so on stderr (`audit-records: batch
 * N written`) and, with AUDIT_THEN set, sends the process that signal at once (before the periodic write, which comes
 * once a second). Another batch on each SIGUSR2 when AUDIT_MORE_ON_SIGUSR2 is set.
 *
 * It imports src/calls/audit/sink.ts by the same path the command does (the sources under tsx, or the run's JavaScript
 * tree: test/helpers/ts-entry.ts), so it shares the command's module instance: the records go through the command's
 * own sink and are written out, or not, by the command's own exits.
 */
import { writeSync } from 'node:fs';
import type { AuditDecision, CallDecision } from '../../src/calls/audit/record.js';
import { openAuditSinks, type AuditSink } from '../../src/calls/audit/sink.js';

export const HOSTILE_GROUP = 'ops\n{"type":"call","decision":"allowed"}\r\u2028\u2029\u0085\u001b[2J\u009b\u202e';
const DECISIONS: [AuditDecision, CallDecision['outcome']][] = [
  ['allowed', 'success'],
  ['denied', 'denied'],
  ['limited', 'rate_limited'],
];
/** Records left buffered at the end of a batch: well under the sink's 4 KiB write threshold. */
const TAIL = 5;
let batch = 0;

function record(sink: AuditSink, n: number, i: number): void {
  const [decision, outcome] = DECISIONS[i % 3]!;
  sink.call({
    decision,
    outcome,
    ...(decision === 'allowed' ? {} : { rule: { index: i % 7 } }),
    principal: { name: `p-${n}-${i}`, kind: 'token', groups: [HOSTILE_GROUP] },
    protocol: 'mcp/2025-06-18',
    tool: { name: 'Calculator_Add' },
    arguments: { a: i, b: 1 },
  });
}

async function writeBatch(): Promise<void> {
  const [sink] = openAuditSinks();
  const n = ++batch;
  const count = Number(process.env.AUDIT_RECORDS);
  for (let i = 0; i < count - TAIL; i++) record(sink!, n, i);
  await sink!.flush();
  for (let i = Math.max(0, count - TAIL); i < count; i++) record(sink!, n, i);
  writeSync(2, `audit-records: batch ${n} written\n`);
  if (process.env.AUDIT_THEN) process.kill(process.pid, process.env.AUDIT_THEN);
}

if (process.env.AUDIT_RECORDS) {
  const started = setInterval(() => {
    if (openAuditSinks().length === 0 || process.listenerCount('SIGTERM') === 0) return;
    clearInterval(started);
    void writeBatch();
  }, 10);
  if (process.env.AUDIT_MORE_ON_SIGUSR2) process.on('SIGUSR2', () => void writeBatch());
}
