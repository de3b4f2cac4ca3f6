/**
 * The call gate: what happens to every tool call besides its run, in one place for both directions.
 *
 *   face: the request translated into a GateCall (MCP tools/call forward, OXP POST /tools/call in reverse)
 *     → gate.open: decide (the access policy) → limit (the counter the deciding rule names)
 *     → run: the direction's own work (forward: input, credentials, requirements, the OXP call; reverse: the MCP
 *       server's tool), between open and finish
 *     → gate.finish: the limit given back, the call recorded (audit record, metrics, the console's record, the log line)
 *   face: the outcome rendered in its own wire format (an MCP reply or error; an OXP result or HTTP status)
 *
 * A call that ends before it reaches the gate (an unknown tool, a body the face cannot parse) is still finished
 * here: every call leaves one record. A new per-call step is one edit in this module; both directions pass through
 * it, and test/integration/call-gate.test.ts drives the same table of cases through both.
 *
 * The call value (GateCall) is the direction's own per-call object (forward/bridge/tool-call.ts,
 * reverse/face/oxp-call.ts) seen through one direction-neutral interface: the gate reads and writes its fields and
 * allocates nothing per call of its own. `open` answers synchronously when the deciding rule carries no limit (no
 * await on the fast path); it returns a promise only when a store must count the call.
 *
 * The seam for tasks (a call that continues after its request is answered, issue 32): `open` at the task's
 * creation (decided and limited then: a refusal is rendered as the request's answer, and no task is made), the run
 * detached from the request, `finish` at the task's end — its outcome, duration and reply then, and the admission
 * held until then, so a rule's `maxInFlight` counts running tasks, not requests. The request that created the task
 * is answered by the face without a `finish` of its own: the task's one record is the call's.
 *
 * The per-call log line is written here too, one per call whatever it came to (run, refused, unknown, cancelled),
 * with the same field names in both directions (`call_id`, `trace_id`, `tool`, `upstream`, `oxp_tool`,
 * `protocol_version`, `principal`, `rule`, `task_id`, `outcome`, `duration_ms`). What only one direction knows
 * (the upstream exchange: attempts, the upstream's detail; the span's id) and the line's level and message come
 * from the call value (`logLevel`, `logFields`, `logDetail`); the line is built only when its level is enabled.
 */
import type { AccessDecision, RuleRef } from '../core/access-policy.js';
import type { Principal } from '../core/principal.js';
import type { Logger } from '../platform/log.js';
import type { AuditProtocol, CallDecision } from './audit/record.js';
import type { AuditSink } from './audit/sink.js';
import { FREE_ADMISSION, type Admission, type CallLimitRefusal, type CallLimits } from './limits/call-limits.js';

/** The words a limited caller reads (each face renders them in its own wire format); what a call holds of its limit. */
export { limitRefusalText, type Admission } from './limits/call-limits.js';

/** One tool call as the gate sees it, whichever face it came in on: filled as the call goes, read when it finishes. */
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
  outcome: string;
  /** When the call began (`performance.now()`), or 0 for a call refused before it began (no duration is recorded then). */
  started: number;
  /** Set by the run step when it reads the clock for its own answer or log line, else by `finish` from `started`. */
  durationMs: number | undefined;
  /** What the caller was answered, in its face's terms; undefined when no tool answered (reverse) or the call threw. */
  reply: Reply | undefined;
  /** What the call holds of its rule's limit between `open` and `finish`. */
  admission: Admission | undefined;
  /** The task the call runs as, when it runs as one (the log line's `task_id`). */
  readonly taskId?: string | undefined;
  /** The level of the call's log line, for its outcome (read once the outcome is set). */
  readonly logLevel: CallLogLevel;
  /** Adds what only this direction knows to the call's log line (trace ids, the upstream exchange); returns the line's message. */
  logFields(line: Record<string, unknown>): string;
  /** Writes the lines that go with the call's line at more detail (debug), if any. */
  logDetail?(log: Logger): void;
  /** The state the call's end leaves its task in (the console shows it). */
  readonly taskState?: string | undefined;
}

export type CallLogLevel = 'debug' | 'info' | 'warn';

/** A call the gate refused: its access rule denied it, or the rule's limit did. */
export type GateRefusal = DeniedCall | CallLimitRefusal;
export interface DeniedCall {
  ok: false;
  reason: 'denied';
}
const DENIED: DeniedCall = Object.freeze({ ok: false, reason: 'denied' });

/** The access policy as one direction applies it to its tools (forward/bridge/tool-access.ts, reverse/face/access.ts). */
export interface GateAccess<Tool> {
  decide(tool: Tool, principal: Principal | undefined): AccessDecision;
  principalOf(principal: Principal | undefined): Principal;
}

/** Told about every finished call, after its answer is known (the console's recorder). The call object is reused: copy what is kept. */
export interface CallObserver<Tool = unknown, Reply = unknown> {
  callFinished(call: Readonly<GateCall<Tool, Reply>>): void;
}

export interface CallCounter {
  countCall(revision: string, tool: string, upstream: string, outcome: string, principal?: Principal): void;
}

export interface GateParts<Tool, Access extends GateAccess<Tool>> {
  access: Access;
  /** Counts the calls access rules limit. Absent: limits are not enforced (the embedded demo toolkit). */
  limits?: CallLimits | undefined;
  /** The audit trail. Absent or off: no record is built. */
  audit?: AuditSink | undefined;
  /** The calls counted on /metrics (forward). */
  metrics?: CallCounter | undefined;
  /** Where each call's log line goes. Absent: no line. */
  log?: Logger | undefined;
}

/** Outcomes that mean a rule's limit refused the call (the audit trail's `limited`). */
const LIMITED = new Set(['rate_limited', 'too_many_in_flight', 'store_unavailable']);

export class CallGate<Tool = unknown, Reply = unknown, Access extends GateAccess<Tool> = GateAccess<Tool>> {
  /** The access policy as this direction applies it (also what lists and the console read). */
  readonly access: Access;
  readonly limits: CallLimits | undefined;
  private readonly audit: AuditSink | undefined;
  private readonly metrics: CallCounter | undefined;
  private readonly log: Logger | undefined;
  /** Set by the console when it is on; undefined costs nothing per call. */
  observer: CallObserver<Tool, Reply> | undefined;

  constructor(parts: GateParts<Tool, Access>) {
    this.access = parts.access;
    this.limits = parts.limits;
    // Undefined when off: a call then builds no record at all.
    this.audit = parts.audit?.kind === 'off' ? undefined : parts.audit;
    this.metrics = parts.metrics;
    this.log = parts.log;
  }

  /**
   * Decides the call to `tool` and charges it to its rule's limit: the admission (kept on the call until `finish`),
   * or the refusal, its outcome and rule set on the call for the record. Synchronous unless a store counts the call.
   */
  open(call: GateCall<Tool, Reply>, tool: Tool): Admission | GateRefusal | Promise<Admission | GateRefusal> {
    call.tool = tool;
    const decision = this.access.decide(tool, call.caller);
    if (decision.rule) call.rule = decision.rule;
    if (!decision.allow) {
      call.outcome = 'denied';
      return DENIED;
    }
    if (!decision.limits || !this.limits) return (call.admission = FREE_ADMISSION);
    return this.limit(call, decision);
  }

  /**
   * For a call refused before it could be opened (reverse: a tool id the caller's view of the catalog does not
   * hold): whether the policy denies the caller `tool`. When it does, the call is marked denied (its tool, rule and
   * outcome) for its record; nothing is charged either way.
   */
  denies(call: GateCall<Tool, Reply>, tool: Tool): boolean {
    const decision = this.access.decide(tool, call.caller);
    if (decision.allow) return false;
    call.tool = tool;
    call.rule = decision.rule;
    call.outcome = 'denied';
    return true;
  }

  private async limit(call: GateCall<Tool, Reply>, decision: AccessDecision): Promise<Admission | GateRefusal> {
    const admitted = await this.limits!.admit(decision, this.access.principalOf(call.caller), call.toolKey);
    if (admitted.ok) return (call.admission = admitted);
    call.outcome = admitted.reason;
    return admitted;
  }

  /**
   * A record of a decision that is not the call's end — a task's creation (`task_created`): the audit trail only;
   * the call's own record (metrics, console, audit) follows at its end, through `finish`.
   */
  note(call: GateCall<Tool, Reply>, outcome: string): void {
    if (this.audit === undefined) return;
    call.principal = this.access.principalOf(call.caller);
    this.audit.call({ ...decisionOf(call), outcome, decision: 'allowed', durationMs: undefined });
  }

  /** The call is over (answered, refused, or thrown): its limit given back, then one record of it everywhere it is recorded. */
  finish(call: GateCall<Tool, Reply>): void {
    call.admission?.release();
    call.admission = undefined;
    // The run step may have read it already (the forward log line's, the OXP answer's `duration`): one reading per call.
    if (call.durationMs === undefined && call.started) call.durationMs = performance.now() - call.started;
    this.metrics?.countCall(call.revision, call.upstream !== undefined ? (call.toolName ?? '') : '(unknown)', call.upstream ?? '', call.outcome, call.caller);
    if (this.log !== undefined) writeLine(this.log, call);
    if (this.observer === undefined && this.audit === undefined) return;
    // Nobody authenticated: the record names the anonymous principal the policy saw (no allocation, it is kept).
    call.principal = this.access.principalOf(call.caller);
    this.observer?.callFinished(call);
    this.audit?.call(decisionOf(call));
  }
}

/** The call's one log line, built only when its level is enabled; duration to 0.1 ms, as the console shows it. */
function writeLine(log: Logger, call: GateCall): void {
  const level = call.logLevel;
  if (!log.isLevelEnabled(level)) return;
  const line: Record<string, unknown> = {};
  if (call.callId !== undefined) line.call_id = call.callId;
  const msg = call.logFields(line);
  if (call.toolName !== undefined) line.tool = call.toolName;
  if (call.upstream !== undefined) line.upstream = call.upstream;
  if (call.oxpId !== undefined) line.oxp_tool = call.oxpId;
  line.protocol_version = call.revision;
  if (call.caller !== undefined) line.principal = call.caller.name;
  if (call.rule !== undefined) line.rule = call.rule;
  if (call.taskId !== undefined) line.task_id = call.taskId;
  line.outcome = call.outcome;
  if (call.durationMs !== undefined) line.duration_ms = Math.round(call.durationMs * 10) / 10;
  log[level](line, msg);
  if (call.logDetail !== undefined && log.isLevelEnabled('debug')) call.logDetail(log);
}

/** A call's trace on its log line: its span's ids when tracing made one, else the trace id its client sent, if any. */
export function traceFields(line: Record<string, unknown>, span: { traceId?: string; spanId?: string } | undefined, receivedTraceId: string | undefined): void {
  if (span?.spanId) {
    line.trace_id = span.traceId;
    line.span_id = span.spanId;
  } else if (receivedTraceId !== undefined) line.trace_id = receivedTraceId;
}

/** One finished call as the audit trail records it (keys of the arguments only: record.ts keeps nothing else). */
function decisionOf(call: GateCall): CallDecision {
  const { outcome } = call;
  const decision: CallDecision = {
    decision: outcome === 'denied' ? 'denied' : LIMITED.has(outcome) ? 'limited' : 'allowed',
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
