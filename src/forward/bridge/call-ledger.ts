/**
 * The forward direction's running tool calls, each recorded once whichever end comes first: its answer, its
 * client going away, or the process leaving without it (`abandonAll`). A call begins with its span and its one
 * clock (its log line, the console and the audit trail read their duration from `started`); its record ends the
 * span and hands the call to the gate's `finish` (its limit given back; metrics, console, audit, log line).
 */
import type { CallGate } from '../../calls/gate.js';
import { TaskStopped } from '../../calls/tasks/lifecycle.js';
import type { CatalogEntry } from '../../core/catalog.js';
import { profileFor, type McpVersion } from '../../core/mcp-versions.js';
import { JSONRPC_INTERNAL_ERROR } from '../../core/mcp-wire.js';
import { InFlight } from '../../platform/shared/in-flight.js';
import { tracer } from '../../platform/telemetry/tracer.js';
import { done } from './call-answers.js';
import type { CallAnswer, CallContext, CallReply } from './call-types.js';
import { endRequestSpan } from './request-span.js';
import { taskStateOf } from './task-calls.js';
import { ToolCall, type ResolvedCall } from './tool-call.js';
import type { ToolAccess } from './tool-access.js';

/** How a call that got no answer ended: `cancelled` only when its client (or a task's caller) cancelled it. */
export type UnansweredOutcome = 'cancelled' | 'internal_error' | 'lease_lost' | 'expired' | 'shutdown';

/** A task's call stopped by something else than its caller says what (lifecycle.ts TaskStopped): another replica took it over, it expired, the bridge shut down. */
function unansweredOutcome(signal: AbortSignal | undefined): UnansweredOutcome {
  if (!signal?.aborted) return 'internal_error';
  const reason: unknown = signal.reason;
  if (!(reason instanceof TaskStopped) || reason.reason === 'cancelled') return 'cancelled';
  return reason.reason === 'taken_over' ? 'lease_lost' : reason.reason;
}

/** The state a stopped task call leaves its task in, as the console shows it: a task taken over runs on elsewhere. */
const STOPPED_STATES: Partial<Record<string, string>> = { cancelled: 'cancelled', lease_lost: 'taken_over', expired: 'expired' };

export class CallLedger {
  private readonly inFlight = new InFlight();
  /** Calls running now, each recorded once: by its own end, or by abandonAll. */
  private readonly running = new Set<ToolCall>();

  constructor(private readonly gate: CallGate<CatalogEntry, CallReply, ToolAccess>) {}

  /** Waits until no tool call is running, up to `deadlineMs`; resolves with the calls left. */
  idle(deadlineMs: number): Promise<number> {
    return this.inFlight.idle(deadlineMs);
  }

  /** A call begins: its span, its clock. */
  start(version: McpVersion, name: string, args: unknown, ctx: CallContext): ToolCall {
    this.inFlight.enter();
    // The MCP request's server span; like the metric, named after the tool only once the tool is known (client names are unbounded).
    const span = tracer().start('tools/call', { kind: 'server', parent: ctx.traceparent });
    const call = new ToolCall(version, name, args, ctx, span);
    call.started = performance.now();
    this.running.add(call);
    return call;
  }

  /** Runs the rest of a call and records it once, whichever way it ends. */
  async finish(call: ToolCall, rest: () => Promise<CallAnswer>): Promise<CallReply> {
    try {
      const answer = await rest();
      this.record(call, answer);
      return answer.reply;
    } catch (error) {
      // No answer is owed (the client cancelled or went away): still recorded (the gate's log line, metrics, console, audit).
      this.recordUnanswered(call, unansweredOutcome(call.ctx.signal));
      throw error;
    }
  }

  /**
   * Records every call still running as cancelled, now, as a client's cancellation is (its log line, metrics,
   * console, audit record): for a process that exits without waiting for them. Returns how many there were. Their
   * replies, if they ever come, are not recorded again.
   */
  abandonAll(): number {
    const abandoned = [...this.running];
    for (const call of abandoned) this.recordUnanswered(call, 'cancelled');
    return abandoned.length;
  }

  /** A call that ended without an answer: what is known of it (its tool and upstream once resolved). */
  recordUnanswered(call: ToolCall, outcome: UnansweredOutcome): void {
    if (call.recorded) return;
    const durationMs = performance.now() - call.started;
    if (!call.target) return this.record(call, undefined, outcome, durationMs);
    // An abandoned call's upstream answer, if it comes, is not recorded again.
    call.unanswered = true;
    call.loggedMs = durationMs;
    const reply = { error: { code: JSONRPC_INTERNAL_ERROR, message: `The call was ${outcome === 'cancelled' ? 'cancelled' : 'not answered'}.` } };
    this.record(call, done(call as ResolvedCall, reply, outcome));
  }

  /**
   * The call's span, then the gate's record of it, once, whichever end comes first. `durationMs`: read when the
   * upstream answered, when it did (else the gate reads the clock).
   */
  record(call: ToolCall, answer: CallAnswer | undefined, outcome = answer?.outcome ?? 'cancelled', durationMs = answer?.durationMs): void {
    if (call.recorded) return;
    call.recorded = true;
    this.running.delete(call);
    call.settle(answer, outcome, durationMs);
    // A task's call: the state its end leaves the task in (the console shows it).
    if (call.taskId !== undefined) call.taskState = STOPPED_STATES[outcome] ?? (answer ? taskStateOf(answer.reply, profileFor(call.revision).tasks) : 'failed');
    const upstream = answer?.upstream;
    const { span } = call;
    if (span.recording)
      endRequestSpan(span, 'tools/call', call.revision, outcome, answer?.reply, upstream !== undefined ? { tool: call.toolName, upstream } : undefined);
    span.end();
    this.gate.finish(call);
    this.inFlight.leave();
  }
}
