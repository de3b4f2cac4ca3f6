/**
 * The call gate: the one step every tool call runs through, both directions and tasks alike, in one order:
 *
 *   resolve (the direction's: its catalog) → decide (the access policy) → check the input (the direction's: the
 *   tool's schema) → limit (the caller's calls in flight, then the counter the deciding rule names) → run (the
 *   direction's own work: forward the OXP call, reverse the MCP server's tool) → record (the limit given back; the
 *   audit record, metrics, the console's record and the log line, gate-record.ts)
 *
 * `run(call, steps)` is the whole of it; what only one direction knows, it gives as `CallSteps`. The call ends with
 * one outcome (core/call-outcomes.ts) and what its face renders set on the call value; the face renders it in its own
 * wire format (an MCP reply or error; an OXP result or HTTP status). Every call leaves one record, whatever it came
 * to (an unknown tool, denied, invalid, limited, run, thrown, cancelled): no face or bridge records a call, or keeps
 * a try/finally of its own for it. An invalid call is refused before any limit counts it. A new per-call step is
 * one edit here, and test/integration/call-gate.test.ts drives the same table of cases through both directions.
 *
 * Tasks (a call that continues after its request is answered) take the same step in two halves: `open` at the
 * task's creation (resolved, decided, checked and charged then: a refusal is the request's answer, and no task is
 * made), `runOpened` at the task's start (run and recorded at its end, the admission held until then, so every
 * in-flight cap counts running tasks), or `abandon` when no task could be made for it.
 *
 * The call value (GateCall) is the direction's own per-call object (forward/bridge/tool-call.ts,
 * reverse/face/oxp-call.ts) seen through one direction-neutral interface: the gate reads and writes its fields and
 * allocates nothing per call of its own. No step awaits unless its answer is a promise (a catalog still loading, a
 * store that counts the call): the common call resolves, decides and checks without one.
 */
import type { AccessDecision } from '../core/access-policy.js';
import type { Principal } from '../core/principal.js';
import type { Logger } from '../platform/log.js';
import { InFlight } from '../platform/shared/in-flight.js';
import type { CallSignal } from '../platform/shared/call-signal.js';
import type { AuditSink } from './audit/sink.js';
import { CallRecords, type CallCounter, type GateCall } from './gate-record.js';
import { FREE_ADMISSION, type Admission, type CallLimitRefusal, type CallLimits } from './limits/call-limits.js';
import type { CallOutcome, UnansweredOutcome } from '../core/call-outcomes.js';
import { TaskStopped } from './tasks/lifecycle.js';

export { limitRefusalText, type Admission } from './limits/call-limits.js';
export { traceFields, type CallCounter, type CallLogLevel, type CallObserver, type GateCall } from './gate-record.js';
export type { CallOutcome, UnansweredOutcome } from '../core/call-outcomes.js';

/** A call the gate refused: its access rule denied it, or a limit did. */
export type GateRefusal = DeniedCall | CallLimitRefusal;
export interface DeniedCall {
  ok: false;
  reason: 'denied';
}
const DENIED: DeniedCall = Object.freeze({ ok: false, reason: 'denied' });

type AllowedDecision = Extract<AccessDecision, { allow: true }>;

/** The access policy as one direction applies it to its tools (forward/bridge/tool-access.ts, reverse/face/access.ts). */
export interface GateAccess<Tool> {
  decide(tool: Tool, principal: Principal | undefined): AccessDecision;
  principalOf(principal: Principal | undefined): Principal;
  /** The policy's settings (reloaded with it): `maxInFlightPerPrincipal` caps each caller's calls running at once. */
  readonly config: { maxInFlightPerPrincipal?: number };
}

/**
 * The steps only the call's direction knows, each given the call value to read and fill. A step that ends the call
 * (an unknown tool, invalid input) sets the outcome and what its face renders on the call, and says so.
 */
export interface CallSteps<Tool, Call> {
  /** The tool the call names, or undefined when the call ends here. */
  resolve(call: Call): Tool | undefined | Promise<Tool | undefined>;
  /** The call's input checked against the tool: true to go on, false when the call ends here. */
  check(call: Call, tool: Tool): boolean;
  /** What the face renders for the gate's refusal (the outcome and rule are set already). */
  refused(call: Call, refusal: GateRefusal): void;
  /** The direction's own work: sets the call's outcome and what its face renders. May throw (the call is then recorded as unanswered). */
  run(call: Call, tool: Tool): Promise<void>;
}

export interface GateParts<Tool, Access extends GateAccess<Tool>> {
  access: Access;
  /** Counts the calls access rules and the in-flight cap limit. Absent: limits are not enforced (the embedded demo toolkit). */
  limits?: CallLimits | undefined;
  /** The audit trail. Absent or off: no record is built. */
  audit?: AuditSink | undefined;
  /** The calls counted on /metrics (forward). */
  metrics?: CallCounter | undefined;
  /** Where each call's log line goes. Absent: no line. */
  log?: Logger | undefined;
}

export class CallGate<Tool = unknown, Reply = unknown, Access extends GateAccess<Tool> = GateAccess<Tool>> extends CallRecords<Tool, Reply> {
  /** The access policy as this direction applies it (also what lists and the console read). */
  readonly access: Access;
  readonly limits: CallLimits | undefined;
  /** Calls between their start and their record: each recorded once, by its own end or by `abandonAll`. */
  private readonly running = new Set<GateCall<Tool, Reply>>();
  private readonly inFlight = new InFlight();

  constructor(parts: GateParts<Tool, Access>) {
    super(parts.access, parts);
    this.access = parts.access;
    this.limits = parts.limits;
  }

  /**
   * The one step: resolve → decide → check → limit → run → record. Resolves with the call (its outcome and reply set:
   * a caller reads them without a frame of its own); throws what the run threw.
   */
  async run<Call extends GateCall<Tool, Reply>>(call: Call, steps: CallSteps<Tool, Call>): Promise<Call> {
    this.begin(call);
    try {
      // `open` then `runOpened`, in one frame: the common call pays for no promise of theirs, nor of `admit`'s.
      let admitted = this.admit(call, steps);
      if (admitted instanceof Promise) admitted = await admitted;
      if (admitted) await steps.run(call, call.tool!);
    } catch (error) {
      this.stopped(call);
      throw error;
    }
    this.finish(call);
    return call;
  }

  /** The step's first half (a task's creation): true when the call may run; else it is recorded, its answer set. */
  async open<Call extends GateCall<Tool, Reply>>(call: Call, steps: CallSteps<Tool, Call>): Promise<boolean> {
    this.begin(call);
    let admitted: boolean;
    try {
      admitted = await this.admit(call, steps);
    } catch (error) {
      this.stopped(call);
      throw error;
    }
    if (!admitted) this.finish(call);
    return admitted;
  }

  /** The step's second half: the opened call run, then recorded (its limit given back) however it ends. */
  async runOpened<Call extends GateCall<Tool, Reply>>(call: Call, steps: CallSteps<Tool, Call>): Promise<CallOutcome> {
    try {
      await steps.run(call, call.tool!);
    } catch (error) {
      this.stopped(call);
      throw error;
    }
    this.finish(call);
    return call.outcome;
  }

  /** An opened call that will not run (no task could be made for it): recorded with `outcome`, its limit given back. */
  abandon(call: GateCall<Tool, Reply>, outcome: CallOutcome): void {
    call.outcome = outcome;
    this.finish(call);
  }

  /**
   * Records every call still running as cancelled, now, as a client's cancellation is: for a process that exits
   * without waiting for them. Returns how many there were; their ends, if they ever come, are not recorded again.
   */
  abandonAll(): number {
    const abandoned = [...this.running];
    for (const call of abandoned) this.unanswered(call, 'cancelled');
    return abandoned.length;
  }

  /** Calls started and not yet recorded. */
  get callsInFlight(): number {
    return this.inFlight.size;
  }

  /** Waits until no call is running, up to `deadlineMs`; resolves with the calls left. */
  idle(deadlineMs: number): Promise<number> {
    return this.inFlight.idle(deadlineMs);
  }

  /** The call counted as running until its record. */
  private begin(call: GateCall<Tool, Reply>): void {
    this.running.add(call);
    this.inFlight.enter();
  }

  /**
   * Resolve → decide → check → limit: true when the call may run (its admission held on it). A promise only when a
   * step's answer is one (a catalog still loading, a store that counts the call): the common call makes none.
   */
  private admit<Call extends GateCall<Tool, Reply>>(call: Call, steps: CallSteps<Tool, Call>): boolean | Promise<boolean> {
    const tool = steps.resolve(call);
    if (tool instanceof Promise) return tool.then((resolved) => this.admitResolved(call, steps, resolved));
    return this.admitResolved(call, steps, tool);
  }

  /** Decide → check → limit, for the tool the call resolved to (undefined: the call ended there). */
  private admitResolved<Call extends GateCall<Tool, Reply>>(call: Call, steps: CallSteps<Tool, Call>, tool: Tool | undefined): boolean | Promise<boolean> {
    if (tool === undefined) return false;
    call.tool = tool;
    const decision = this.access.decide(tool, call.caller);
    if (decision.rule) call.rule = decision.rule;
    if (!decision.allow) return this.refuse(call, steps, DENIED);
    // The input before any limit: an invalid call is charged to nothing.
    if (!steps.check(call, tool)) return false;
    const admitted = call.chargedAlready ? FREE_ADMISSION : this.limit(call, decision);
    if (admitted instanceof Promise) return admitted.then((counted) => this.admitted(call, steps, counted));
    return this.admitted(call, steps, admitted);
  }

  /** The limits' verdict: the admission held on the call, or the call refused. */
  private admitted<Call extends GateCall<Tool, Reply>>(call: Call, steps: CallSteps<Tool, Call>, admitted: Admission | GateRefusal): boolean {
    if (!admitted.ok) return this.refuse(call, steps, admitted);
    call.admission = admitted;
    return true;
  }

  private refuse<Call extends GateCall<Tool, Reply>>(call: Call, steps: CallSteps<Tool, Call>, refusal: GateRefusal): false {
    call.outcome = refusal.reason;
    steps.refused(call, refusal);
    return false;
  }

  /**
   * The limits, in order: the caller's calls in flight (`access.maxInFlightPerPrincipal`, every tool together), then
   * the counter the deciding rule names. Synchronous when neither applies; what a refused rule's limit leaves held
   * is given back.
   */
  private limit(call: GateCall<Tool, Reply>, decision: AllowedDecision): Admission | GateRefusal | Promise<Admission | GateRefusal> {
    const cap = this.access.config.maxInFlightPerPrincipal;
    if (!this.limits || (!cap && !decision.limits)) return FREE_ADMISSION;
    return this.charge(this.limits, call, decision, cap ?? 0);
  }

  private async charge(limits: CallLimits, call: GateCall<Tool, Reply>, decision: AllowedDecision, cap: number): Promise<Admission | GateRefusal> {
    const principal = this.access.principalOf(call.caller);
    const slot = cap > 0 ? await limits.holdCallerSlot(principal, cap) : FREE_ADMISSION;
    if (!slot.ok) return slot;
    const ruled = await limits.admit(decision, principal, call.toolKey);
    if (!ruled.ok) slot.release();
    return !ruled.ok || slot === FREE_ADMISSION ? ruled : ruled === FREE_ADMISSION ? slot : both(slot, ruled);
  }

  /** A call whose step threw: recorded as stopped by what stopped it (its caller, its task's end), else an internal error. */
  private stopped(call: GateCall<Tool, Reply>): void {
    this.unanswered(call, unansweredOutcome(call.signal));
  }

  private unanswered(call: GateCall<Tool, Reply>, outcome: UnansweredOutcome): void {
    if (!this.running.has(call)) return;
    call.endUnanswered(outcome);
    this.finish(call);
  }

  /** The call is over: its limit given back, then its one record (once, whichever end comes first). */
  private finish(call: GateCall<Tool, Reply>): void {
    if (!this.running.delete(call)) return;
    call.admission?.release();
    call.admission = undefined;
    this.record(call);
    this.inFlight.leave();
  }
}

/** A call that got no answer: `cancelled` when its signal says its caller stopped it (lifecycle.ts TaskStopped says who else did). */
function unansweredOutcome(signal: CallSignal | undefined): UnansweredOutcome {
  if (!signal?.aborted) return 'internal_error';
  const reason: unknown = signal.reason;
  if (!(reason instanceof TaskStopped) || reason.reason === 'cancelled') return 'cancelled';
  return reason.reason === 'taken_over' ? 'lease_lost' : reason.reason;
}

/** Two admissions held as one. */
function both(a: Admission, b: Admission): Admission {
  return {
    ok: true,
    release: () => {
      a.release();
      b.release();
    },
  };
}
