/**
 * One MCP tools/call on its way through the forward direction: the call gate's value (calls/gate.ts), and what
 * the orchestration (bridge.ts) learns of it as it goes — its catalog entry, its upstream, its checked input, the
 * OXP call_id it runs under, its logger. One object per call; what only a record reads (the audit protocol, the
 * trace id) is derived when read, so a call nobody records pays nothing for it.
 */
import type { CallSignal } from '../../platform/shared/call-signal.js';
import type { AuditProtocol } from '../../calls/audit/record.js';
import { traceFields, type Admission, type CallLogLevel, type CallOutcome, type GateCall, type UnansweredOutcome } from '../../calls/gate.js';
import type { RuleRef } from '../../core/access-policy.js';
import type { CatalogEntry } from '../../core/catalog.js';
import type { JsonObject } from '../../core/json.js';
import { profileFor, type McpRevision } from '../../core/mcp-versions.js';
import { JSONRPC_INTERNAL_ERROR } from '../../core/mcp-wire.js';
import type { Principal } from '../../core/principal.js';
import { traceIdFromTraceparent } from '../../core/trace.js';
import type { Logger } from '../../platform/log.js';
import type { LineFields } from '../../platform/log-line.js';
import { logIds, type TraceSpan } from '../../platform/telemetry/tracer.js';
import { callLogLevel, upstreamDetail, upstreamFields, type UpstreamRun } from './call-log.js';
import type { CallAnswer, CallContext, CallReply } from './call-types.js';
import { endRequestSpan } from './request-span.js';
import { taskStateOf } from './task-calls.js';
import type { Upstream } from './upstream.js';

/** The state a stopped task call leaves its task in, as the console shows it: a task taken over runs on elsewhere. */
const STOPPED_STATES: Partial<Record<CallOutcome, string>> = { cancelled: 'cancelled', lease_lost: 'taken_over', expired: 'expired' };

export class ToolCall implements GateCall<CatalogEntry, CallReply> {
  principal: Principal | undefined = undefined;
  /** The catalog entry called, once resolved (set by the gate's `open`). */
  tool: CatalogEntry | undefined = undefined;
  /** The upstream serving the tool, once resolved. */
  target: Upstream | undefined = undefined;
  /** The OXP call_id the call runs under, once given (the record's `callId` comes with the answer). */
  oxpCallId: string | undefined = undefined;
  /** The bridge's logger, set once the OXP call starts: the call's own (`logger()`) is a child of it. */
  baseLog: Logger | undefined = undefined;
  private ownLog: Logger | undefined = undefined;
  /** The call's duration (ms since `started`) read when the upstream answered: the log line and the record say it. */
  loggedMs: number | undefined = undefined;
  /** Recorded as ended without an answer (cancelled, abandoned): the upstream's answer, if it comes, changes nothing. */
  unanswered = false;
  /** What the upstream answered, once it did: the log line's upstream fields. */
  run: UpstreamRun | undefined = undefined;
  /** The arguments as checked against the tool's schema (the client's), and as sent (with the tool's fixed arguments). */
  clientInput: JsonObject | undefined = undefined;
  input: JsonObject | undefined = undefined;
  // What the record reads, set from the answer when the call ends (settle).
  upstream: string | undefined = undefined;
  callId: string | undefined = undefined;
  oxpId: string | undefined = undefined;
  rule: RuleRef | undefined = undefined;
  reply: CallReply | undefined = undefined;
  /** Set by the step that ends the call. */
  outcome: CallOutcome = 'internal_error';
  started = 0;
  durationMs: number | undefined = undefined;
  admission: Admission | undefined = undefined;

  constructor(
    readonly revision: McpRevision,
    readonly toolName: string,
    readonly args: unknown,
    readonly ctx: CallContext,
    readonly span: TraceSpan,
  ) {}

  get toolKey(): string {
    return this.toolName;
  }

  get protocol(): AuditProtocol {
    return `mcp/${this.revision}`;
  }

  get caller(): Principal | undefined {
    return this.ctx.principal;
  }

  get signal(): CallSignal | undefined {
    return this.ctx.signal;
  }

  get client(): string | undefined {
    return this.ctx.client;
  }

  /** The MCP task the call runs as, once there is one (a 2026-07-28 call may become a task while it runs). */
  get chargedAlready(): boolean {
    return this.ctx.redrive === true;
  }

  get taskId(): string | undefined {
    return this.ctx.task?.id;
  }

  /** The state the call's end leaves its task in (completed, failed, cancelled, input_required): the console shows it. */
  taskState: string | undefined = undefined;

  /** The span's trace (a new one when the client sent none and tracing is on), else the client's as received. */
  get traceId(): string | undefined {
    return this.span.traceId ?? traceIdFromTraceparent(this.ctx.traceparent);
  }

  get logLevel(): CallLogLevel {
    return callLogLevel(this.outcome);
  }

  logFields(line: LineFields): string {
    traceFields(line, this.span, this.span.spanId ? undefined : traceIdFromTraceparent(this.ctx.traceparent));
    return upstreamFields(line, this.run);
  }

  logDetail(log: Logger): void {
    upstreamDetail(log, this.run, this.baseLog ? this : undefined);
  }

  /**
   * The call's logger, its ids bound, once the OXP call has started (`baseLog`). Made on first use: a pino child
   * serialises its bindings at once, a cost every call would pay even when the level drops every line; and a method,
   * not a closure per call.
   */
  logger(): Logger {
    return (this.ownLog ??= this.baseLog!.child(this.logBindings()));
  }

  private logBindings(): Record<string, unknown> {
    const { ctx } = this;
    return {
      call_id: this.oxpCallId,
      ...logIds(this.span, this.traceId),
      tool: this.toolName,
      upstream: this.target?.name,
      oxp_tool: this.tool?.callId,
      protocol_version: this.revision,
      ...(ctx.principal ? { principal: ctx.principal.name } : {}),
      ...(ctx.task?.id !== undefined ? { task_id: ctx.task.id } : {}),
    };
  }

  /** The call ended with an answer: what it was answered, as the record names it. */
  settle(answer: CallAnswer): void {
    this.upstream = answer.upstream;
    this.callId = answer.callId;
    this.oxpId = answer.oxpId;
    if (answer.rule) this.rule = answer.rule;
    this.reply = answer.reply;
    this.outcome = answer.outcome;
    this.durationMs = answer.durationMs;
  }

  /** No answer (cancelled, abandoned, thrown): once its tool is known, the record says which and the error it ends with. */
  endUnanswered(outcome: UnansweredOutcome): void {
    const durationMs = performance.now() - this.started;
    this.outcome = outcome;
    this.durationMs = durationMs;
    const { target, tool } = this;
    if (!target || !tool) return;
    // An abandoned call's upstream answer, if it comes, changes nothing.
    this.unanswered = true;
    this.loggedMs = durationMs;
    this.upstream = target.name;
    this.callId = this.oxpCallId;
    this.oxpId = tool.callId;
    this.reply = { error: { code: JSONRPC_INTERNAL_ERROR, message: `The call was ${outcome === 'cancelled' ? 'cancelled' : 'not answered'}.` } };
  }

  /** As the call is recorded: its task's state (the console shows it), then its span's end. */
  ending(): void {
    const { outcome, reply, span } = this;
    if (this.taskId !== undefined) this.taskState = STOPPED_STATES[outcome] ?? (reply ? taskStateOf(reply, profileFor(this.revision).tasks) : 'failed');
    if (span.recording)
      endRequestSpan(
        span,
        'tools/call',
        this.revision,
        outcome,
        reply,
        this.upstream !== undefined ? { tool: this.toolName, upstream: this.upstream } : undefined,
      );
    span.end();
  }
}

/** A call whose tool resolved: its entry and upstream are known. */
export type ResolvedCall = ToolCall & { tool: CatalogEntry; target: Upstream };
