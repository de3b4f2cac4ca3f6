/**
 * The call gate's last step (gate.ts): one record of each call, everywhere a call is recorded — metrics, the
 * console's record (the gate's observer), the audit record, the per-call log line — each taking its words from the
 * call's outcome (core/call-outcomes.ts).
 *
 * The per-call log line is one per call whatever it came to (run, refused, unknown, cancelled), with the same field
 * names in both directions (`call_id`, `trace_id`, `tool`, `upstream`, `oxp_tool`, `protocol_version`, `principal`,
 * `rule`, `task_id`, `outcome`, `duration_ms`). What only one direction knows (the upstream exchange: attempts, the
 * upstream's detail; the span's id) and the line's level and message come from the call value (`logLevel`,
 * `logFields`, `logDetail`); the line is built only when its level is enabled.
 */
import type { CallSignal } from '../platform/shared/call-signal.js';
import type { RuleRef } from '../core/access-policy.js';
import type { Principal } from '../core/principal.js';
import type { Logger } from '../platform/log.js';
import { FieldRecord, lineWriterOf, type LineFields } from '../platform/log-line.js';
import type { AuditProtocol, CallDecision } from './audit/record.js';
import type { AuditSink } from './audit/sink.js';
import type { Admission } from './limits/call-limits.js';
import { OUTCOMES, type CallOutcome, type UnansweredOutcome } from '../core/call-outcomes.js';

/** One tool call as the gate sees it, whichever face it came in on: filled as the call goes, read when it is recorded. */
export interface GateCall<Tool = unknown, Reply = unknown> {
  /** The caller's protocol revision: an MCP revision forward, `oxp-1.0` in reverse (the metrics' and the console's label). */
  readonly revision: string;
  /** The audit trail's name for the face: `mcp/<revision>` or `oxp/1.0`. */
  readonly protocol: AuditProtocol;
  /** Who called, as the face authenticated it; undefined when nobody did (metrics count it as anonymous). */
  readonly caller: Principal | undefined;
  /** Who called, as the policy sees it (the anonymous principal when nobody authenticated): set by the gate. */
  principal: Principal | undefined;
  /** The client's address (HTTP), for the audit trail; none over stdio. */
  readonly client: string | undefined;
  /** The arguments as the caller sent them: the audit trail keeps their keys, the console their shape. */
  readonly args: unknown;
  /** The tool, once resolved: the forward catalog's entry, or the reverse source's tool. */
  tool: Tool | undefined;
  /** The tool's MCP name, as the audit trail names it. */
  readonly toolName: string | undefined;
  /** The tool as its rule's counters and a limit's refusal name it: the MCP name forward, the OXP id (no version) in reverse. */
  readonly toolKey: string;
  /** The OXP tool id (version pinned), once known. */
  readonly oxpId: string | undefined;
  /** The upstream that serves the tool, once known. */
  readonly upstream: string | undefined;
  /** The OXP call_id, once given. */
  readonly callId: string | undefined;
  /** The trace the call ran in. */
  readonly traceId: string | undefined;
  /** The access rule that decided (denied it, limited it, or let it through), when a rule did. */
  rule: RuleRef | undefined;
  /** What the call came to: the label of metrics, the log, the audit trail and the console. */
  outcome: CallOutcome;
  /** When the call began (`performance.now()`), or 0 for a call refused before it began (no duration is recorded then). */
  started: number;
  /** Set by the run step when it reads the clock for its own answer or log line, else by the record from `started`. */
  durationMs: number | undefined;
  /** What the caller was answered, in its face's terms; undefined when no tool answered (reverse) or the call threw. */
  reply: Reply | undefined;
  /** What the call holds of its limits between the limit step and its record. */
  admission: Admission | undefined;
  /** What stops the call's run (its client going away, its task stopped): a call that threw says by it what stopped it. */
  readonly signal: CallSignal | undefined;
  /** The task the call runs as, when it runs as one (the log line's `task_id`). */
  readonly taskId?: string | undefined;
  /**
   * The call was charged to its limits already: a task's call run again by the replica that took the task over (its
   * creation was charged; the re-drive is the same call). The limit step passes it, so a limit never fails a task
   * it accepted.
   */
  readonly chargedAlready?: boolean;
  /** The level of the call's log line, for its outcome (read once the outcome is set). */
  readonly logLevel: CallLogLevel;
  /** Adds what only this direction knows to the call's log line (trace ids, the upstream exchange); returns the line's message. */
  logFields(line: LineFields): string;
  /** Writes the lines that go with the call's line at more detail (debug), if any. */
  logDetail?(log: Logger): void;
  /** The state the call's end leaves its task in (the console shows it). */
  readonly taskState?: string | undefined;
  /** The call ended without an answer (its run threw, or the process gave up on it): its outcome, and what its record says then. */
  endUnanswered(outcome: UnansweredOutcome): void;
  /** Called once as the call is recorded, before anything reads it (forward: its span ends, its task's state is set). */
  ending?(): void;
}

export type CallLogLevel = 'debug' | 'info' | 'warn';

/** Told about every recorded call, after its answer is known (the console's recorder). The call object is reused: copy what is kept. */
export interface CallObserver<Tool = unknown, Reply = unknown> {
  callFinished(call: Readonly<GateCall<Tool, Reply>>): void;
}

export interface CallCounter {
  countCall(revision: string, tool: string, upstream: string, outcome: CallOutcome, principal?: Principal): void;
}

interface RecordParts {
  audit?: AuditSink | undefined;
  metrics?: CallCounter | undefined;
  log?: Logger | undefined;
}

/** Who a call's record names: the anonymous principal the policy sees when nobody authenticated. */
interface PrincipalOf {
  principalOf(principal: Principal | undefined): Principal;
}

export class CallRecords<Tool, Reply> {
  private readonly audit: AuditSink | undefined;
  private readonly metrics: CallCounter | undefined;
  private readonly log: Logger | undefined;
  /** Set by the console when it is on; undefined costs nothing per call. */
  observer: CallObserver<Tool, Reply> | undefined;

  constructor(
    private readonly principals: PrincipalOf,
    parts: RecordParts,
  ) {
    // Undefined when off: a call then builds no record at all.
    this.audit = parts.audit?.kind === 'off' ? undefined : parts.audit;
    this.metrics = parts.metrics;
    this.log = parts.log;
  }

  /**
   * A record of a decision that is not the call's end — a task's creation (`task_created`): the audit trail only;
   * the call's own record (metrics, console, audit) follows at its end.
   */
  note(call: GateCall<Tool, Reply>, outcome: 'task_created'): void {
    if (this.audit === undefined) return;
    call.principal = this.principals.principalOf(call.caller);
    this.audit.call({ ...decisionOf(call), outcome, decision: 'allowed', durationMs: undefined });
  }

  /** One record of the call everywhere it is recorded. */
  protected record(call: GateCall<Tool, Reply>): void {
    call.ending?.();
    // The run step may have read it already (the forward log line's, the OXP answer's `duration`): one reading per call.
    if (call.durationMs === undefined && call.started) call.durationMs = performance.now() - call.started;
    this.metrics?.countCall(call.revision, call.upstream !== undefined ? (call.toolName ?? '') : '(unknown)', call.upstream ?? '', call.outcome, call.caller);
    if (this.log !== undefined) writeLine(this.log, call);
    if (this.observer === undefined && this.audit === undefined) return;
    // Nobody authenticated: the record names the anonymous principal the policy saw (no allocation, it is kept).
    call.principal = this.principals.principalOf(call.caller);
    this.observer?.callFinished(call);
    this.audit?.call(decisionOf(call));
  }
}

/**
 * The call's one log line, built only when its level is enabled: written by the logger's own line writer
 * (platform/log-line.ts) when it has one and the values allow, else through pino.
 */
function writeLine(log: Logger, call: GateCall): void {
  const level = call.logLevel;
  if (!log.isLevelEnabled(level)) return;
  const writer = lineWriterOf(log);
  if (writer === undefined || !writer.end(lineFields(writer.begin(log.levels.values[level]!), call))) {
    const line = new FieldRecord();
    const msg = lineFields(line, call);
    log[level](line.fields, msg);
  }
  if (call.logDetail !== undefined && log.isLevelEnabled('debug')) call.logDetail(log);
}

/** The line's fields, in its order; returns its message. Duration to 0.1 ms, as the console shows it. */
function lineFields(line: LineFields, call: GateCall): string {
  line.text('call_id', call.callId);
  const msg = call.logFields(line);
  line.text('tool', call.toolName);
  line.text('upstream', call.upstream);
  line.text('oxp_tool', call.oxpId);
  line.text('protocol_version', call.revision);
  if (call.caller !== undefined) line.text('principal', call.caller.name);
  if (call.rule !== undefined) line.ref('rule', call.rule);
  line.text('task_id', call.taskId);
  line.text('outcome', call.outcome);
  if (call.durationMs !== undefined) line.number('duration_ms', Math.round(call.durationMs * 10) / 10);
  return msg;
}

/** A call's trace on its log line: its span's ids when tracing made one, else the trace id its client sent, if any. */
export function traceFields(line: LineFields, span: { traceId?: string; spanId?: string } | undefined, receivedTraceId: string | undefined): void {
  if (span?.spanId) {
    line.text('trace_id', span.traceId);
    line.text('span_id', span.spanId);
  } else line.text('trace_id', receivedTraceId);
}

/** One recorded call as the audit trail records it (keys of the arguments only: record.ts keeps nothing else). */
function decisionOf(call: GateCall): CallDecision {
  const { outcome } = call;
  const decision: CallDecision = {
    decision: OUTCOMES[outcome].decision,
    outcome,
    principal: call.principal!,
    protocol: call.protocol,
    tool: { name: call.toolName, oxpId: call.oxpId, upstream: call.upstream },
    durationMs: call.durationMs,
    callId: call.callId,
    traceId: call.traceId,
    arguments: call.args,
  };
  if (call.rule) decision.rule = call.rule;
  if (call.client !== undefined) decision.client = call.client;
  if (call.taskId !== undefined) decision.taskId = call.taskId;
  return decision;
}
