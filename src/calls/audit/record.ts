/**
 * The audit trail's records (docs/observability.md, "Audit trail"): one per tool-call decision and one per
 * configuration reload, each written as one JSON line. Pure: no I/O.
 *
 * Much of a record comes from outside (a principal's name from a token, a tool name and argument keys from a
 * client), so a record is built field by field from what it may hold, never spread from its input (a call's values,
 * `context.secrets` or `developer_message` beside it cannot ride along), every string is cut to a bound (a 1 MB name
 * makes no 1 MB line), and the line escapes every character a reader might take for a line break or a terminal
 * control, so no input can forge a line or hide one.
 */
import type { McpRevision } from '../../core/mcp-versions.js';
import type { CallDecisionKind, CallOutcome } from '../../core/call-outcomes.js';

/** `allowed`: the call ran (its outcome says how it ended); `denied`: a rule refused it; `limited`: a limit did (core/call-outcomes.ts says which). */
export type AuditDecision = CallDecisionKind;
/** The face the call came in on: an MCP revision, or OXP. */
export type AuditProtocol = `mcp/${McpRevision}` | 'oxp/1.0';

export interface AuditPrincipal {
  name: string;
  /** How it was authenticated, e.g. `anonymous`, `token`, `oauth`, `api-key`, `jwt`. */
  kind: string;
  groups?: readonly string[];
}

/** The rule that decided a denied or limited call: its place in the policy, and its id when it has one. */
export interface AuditRule {
  index: number;
  id?: string;
}

export interface AuditTool {
  /** The tool's MCP name (as the client called it, on either face). */
  name?: string;
  oxpId?: string;
  upstream?: string;
}

/** What the call path knows of one decision. */
export interface CallDecision {
  decision: AuditDecision;
  /** The call's outcome (core/call-outcomes.ts), as in metrics and the log; `task_created` for a task's creation. */
  outcome: CallOutcome | 'task_created';
  rule?: AuditRule;
  principal: AuditPrincipal;
  /** The client's address (HTTP); none over stdio. */
  client?: string;
  protocol: AuditProtocol;
  tool: AuditTool;
  durationMs?: number;
  callId?: string;
  traceId?: string;
  /** The MCP task the call runs as: its creation (`outcome` `task_created`) and its end each make a record. */
  taskId?: string;
  /** The call's arguments: only their top-level keys are kept, never a value. */
  arguments?: unknown;
}

export interface CallRecord {
  time: string;
  type: 'call';
  decision: AuditDecision;
  outcome: string;
  rule?: AuditRule;
  principal: AuditPrincipal;
  client?: string;
  protocol: string;
  tool: AuditTool;
  durationMs?: number;
  callId?: string;
  traceId?: string;
  taskId?: string;
  argumentKeys?: string[];
  /** Top-level argument keys beyond the first MAX_KEYS, counted, not listed. */
  argumentKeysOmitted?: number;
}

export interface ReloadRecord {
  time: string;
  type: 'reload';
  outcome: 'applied' | 'rejected';
  /** What changed (configuration key paths, `upstreams: added NAME`…); empty when rejected. */
  changes: string[];
  /** Changed keys that take effect only after a restart. */
  restartRequired?: string[];
  file?: string;
}

/**
 * A task's run changing hands between replicas (docs/production.md, "When Redis or a replica fails"): `redrive`, this
 * replica took the task over after its runner's lease lapsed and runs its call again (the same call_id);
 * `lease_lost`, another replica took over a task this replica was running, whose call stops here; `gave_up`, a task
 * taken over more than tasks.maxRedrives times ended failed instead of running again.
 */
export interface TaskEventRecord {
  time: string;
  type: 'task';
  event: 'redrive' | 'lease_lost' | 'gave_up';
  taskId: string;
  callId?: string;
  tool?: string;
  principal?: AuditPrincipal;
  /** Take-overs so far, this one included. */
  redrives: number;
  /** The replica that wrote the record (its lease holder id). */
  replica: string;
}

export type AuditRecord = CallRecord | ReloadRecord | TaskEventRecord;

/** Bounds of what outside input can put in a record. */
const MAX_KEYS = 64;
const MAX_KEY = 128;
const MAX_NAME = 256;
const MAX_LABEL = 64;
const MAX_GROUPS = 32;
const MAX_CHANGES = 64;

/** `s` cut to `max` UTF-16 units (not inside a surrogate pair), with `…` when cut. */
function cut(s: unknown, max: number): string {
  const text = typeof s === 'string' ? s : String(s);
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 2);
  const end = code >= 0xd800 && code <= 0xdbff ? max - 2 : max - 1;
  return `${text.slice(0, end)}…`;
}

const opt = (s: unknown, max: number) => (s === undefined || s === null ? undefined : cut(s, max));

/** The top-level keys of a call's arguments (an object; anything else has none): at most MAX_KEYS, each cut, sorted. */
export function argumentKeys(args: unknown): string[] {
  return keysOf(args).keys;
}

function keysOf(args: unknown): { keys: string[]; omitted: number } {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return { keys: [], omitted: 0 };
  const all = Object.keys(args);
  // The first MAX_KEYS in the arguments' own order: sorting a hostile 100,000 keys would cost more than the call.
  const keys = all.slice(0, MAX_KEYS).map((k) => cut(k, MAX_KEY));
  return { keys: keys.sort(), omitted: all.length - keys.length };
}

function principalOf(p: AuditPrincipal): AuditPrincipal {
  const principal: AuditPrincipal = { name: cut(p.name, MAX_NAME), kind: cut(p.kind, MAX_LABEL) };
  if (Array.isArray(p.groups) && p.groups.length) principal.groups = p.groups.slice(0, MAX_GROUPS).map((g) => cut(g, MAX_NAME));
  return principal;
}

export function callRecord(call: CallDecision, now: number = Date.now()): CallRecord {
  const record: CallRecord = {
    time: new Date(now).toISOString(),
    type: 'call',
    decision: call.decision,
    outcome: cut(call.outcome, MAX_LABEL),
    principal: principalOf(call.principal),
    protocol: cut(call.protocol, MAX_LABEL),
    tool: { name: opt(call.tool.name, MAX_NAME), oxpId: opt(call.tool.oxpId, MAX_NAME), upstream: opt(call.tool.upstream, MAX_NAME) },
  };
  if (call.rule) record.rule = { index: Math.trunc(Number(call.rule.index)), id: opt(call.rule.id, MAX_NAME) };
  record.client = opt(call.client, MAX_NAME);
  if (typeof call.durationMs === 'number' && Number.isFinite(call.durationMs)) record.durationMs = Math.round(call.durationMs * 10) / 10;
  record.callId = opt(call.callId, MAX_NAME);
  record.traceId = opt(call.traceId, MAX_LABEL);
  record.taskId = opt(call.taskId, MAX_LABEL);
  if (call.arguments !== undefined) {
    const { keys, omitted } = keysOf(call.arguments);
    record.argumentKeys = keys;
    if (omitted > 0) record.argumentKeysOmitted = omitted;
  }
  return record;
}

export interface ReloadOutcome {
  outcome: 'applied' | 'rejected';
  changes?: readonly string[];
  restartRequired?: readonly string[];
  file?: string;
}

export function reloadRecord(reload: ReloadOutcome, now: number = Date.now()): ReloadRecord {
  const record: ReloadRecord = {
    time: new Date(now).toISOString(),
    type: 'reload',
    outcome: reload.outcome,
    changes: (reload.changes ?? []).slice(0, MAX_CHANGES).map((c) => cut(c, MAX_NAME)),
  };
  if (reload.restartRequired?.length) record.restartRequired = reload.restartRequired.slice(0, MAX_CHANGES).map((c) => cut(c, MAX_NAME));
  if (reload.file !== undefined) record.file = cut(reload.file, 4096);
  return record;
}

export interface TaskEvent {
  event: TaskEventRecord['event'];
  taskId: string;
  callId?: string | undefined;
  tool?: string | undefined;
  principal?: AuditPrincipal | undefined;
  redrives: number;
  replica: string;
}

export function taskEventRecord(event: TaskEvent, now: number = Date.now()): TaskEventRecord {
  const record: TaskEventRecord = {
    time: new Date(now).toISOString(),
    type: 'task',
    event: event.event,
    taskId: cut(event.taskId, MAX_LABEL),
    redrives: Math.trunc(Number(event.redrives)) || 0,
    replica: cut(event.replica, MAX_LABEL),
  };
  if (event.callId !== undefined) record.callId = cut(event.callId, MAX_NAME);
  if (event.tool !== undefined) record.tool = cut(event.tool, MAX_NAME);
  if (event.principal) record.principal = principalOf(event.principal);
  return record;
}

/**
 * What JSON.stringify leaves as it is but a reader may not: U+2028/U+2029 and NEL (line breaks to JavaScript and to
 * Python's splitlines()), DEL and the C1 controls (CSI and friends, to a terminal), bidirectional overrides (text that
 * reads in another order than it is written) and the BOM. JSON.stringify already escapes U+0000–U+001F and lone
 * surrogates; these only occur inside strings, where an escape means the same character.
 */
const UNSAFE = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/;
const UNSAFE_ALL = new RegExp(UNSAFE.source, 'g');

/** The record as one line of JSON, with its newline: the only newline in it. */
export function auditLine(record: AuditRecord): string {
  const json = JSON.stringify(record);
  if (!UNSAFE.test(json)) return `${json}\n`;
  return `${json.replace(UNSAFE_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}\n`;
}
