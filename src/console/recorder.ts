/**
 * The console's memory of recent calls: the last N calls (a ring), and per
 * upstream and per tool a latency/error window of the last minutes
 * (latency-window.ts). Everything is bounded; `record` runs once per call
 * after its answer is known, and does constant work: no value is kept, only
 * shapes (or, when the operator enabled it, redacted JSON cut at a bound).
 *
 * Recording allocates nothing in the steady state (issue 24): the ring is
 * columns of preallocated arrays written in place, shapes are reused while a
 * tool's values keep theirs (redact.ts, ShapeMemo), and the call objects the
 * console API returns are made when it is read. With `showArguments` the
 * redacted text is still made when the call is recorded: keeping the values
 * until read would keep them alive, secrets included, at their full size.
 */
import { LatencyWindow, roundedMs, type WindowSnapshot, type WindowStats } from './latency-window.js';
import { MAX_PRINCIPAL_CHARS, redactedJson, shownName, ShapeMemo } from './redact.js';

/** One finished call, as a caller hands it over: `record` copies what it keeps, so the caller may reuse the object. */
export interface FinishedCall {
  /** The MCP tool name (bridge) or the OXP tool id (oxp-server). */
  tool: string;
  /** The upstream that served it; undefined when the call never reached one (unknown tool, invalid arguments…). */
  upstream: string | undefined;
  /** The MCP revision of the client (bridge), or `oxp-1.0`. */
  revision: string;
  outcome: string;
  /** The call's one measurement, the one its log line carries (shown to 0.1 ms, as the bridge's log line and the audit trail). */
  durationMs: number;
  /** The upstream failed (transport, timeout, circuit): counts in the error rate. Tool errors do not. */
  failed: boolean;
  callId?: string | undefined;
  traceId?: string | undefined;
  /** The MCP task the call ran as, and the state the call left it in (completed, failed, cancelled, input_required). */
  taskId?: string | undefined;
  taskState?: string | undefined;
  /** Who called: the principal's name (kept by reference; cut and cleaned only when read) and kind. */
  principal?: string | undefined;
  principalKind?: string | undefined;
  args: unknown;
  result: unknown;
}

/** A FinishedCall to fill per call (the recorder copies what it keeps, so one object serves every call of a console). */
export function blankFinishedCall(revision: string): FinishedCall {
  return {
    tool: '',
    upstream: undefined,
    revision,
    outcome: '',
    durationMs: 0,
    failed: false,
    callId: undefined,
    traceId: undefined,
    taskId: undefined,
    taskState: undefined,
    principal: undefined,
    principalKind: undefined,
    args: undefined,
    result: undefined,
  };
}

export interface RecentCall {
  /** ms since epoch */
  at: number;
  tool: string;
  upstream: string | null;
  revision: string;
  outcome: string;
  durationMs: number;
  callId: string | null;
  traceId: string | null;
  /** The MCP task the call ran as, with the state the call left it in; null for a plain call. */
  task: { id: string; state: string } | null;
  /** The principal's name (at most MAX_PRINCIPAL_CHARS, control and direction characters replaced), and its kind. */
  principal: string | null;
  principalKind: string | null;
  /** Shape (`{key: type}`) by default; redacted JSON text when `showArguments` is on. */
  arguments: unknown;
  result: unknown;
}

export interface RecorderOptions {
  /** Calls kept for the "last calls" list. */
  recentCalls: number;
  /** Show argument and result values (credential-like keys still redacted). */
  showArguments: boolean;
}

export interface ToolStats {
  tool: string;
  /** Outcome → calls since start. */
  outcomes: Record<string, number>;
  window: WindowStats & { ratePerSecond: number };
}

/** Tools given their own statistics; calls to tools beyond are counted together. */
export const MAX_TRACKED_TOOLS = 500;
const OTHER_TOOLS = '(other tools)';
/** Largest argument/result text kept per call when values are shown. */
export const MAX_SHOWN_CHARS = 4096;
/** Upstream windows: 30 slots of 10 s. Tool windows: 10 slots of 30 s. Both span 5 minutes. */
const UPSTREAM_SLOTS = [30, 10_000] as const;
const TOOL_SLOTS = [10, 30_000] as const;

interface ToolEntry {
  window: LatencyWindow;
  outcomes: Map<string, number>;
  args: ShapeMemo;
  result: ShapeMemo;
}

export class CallRecorder {
  private readonly size: number;
  /** The ring, one column per field; `next` is where the next call goes. */
  private readonly at: Float64Array;
  private readonly durationMs: Float64Array;
  private readonly tool: (string | undefined)[];
  private readonly upstream: (string | null)[];
  private readonly revision: string[];
  private readonly outcome: string[];
  private readonly callId: (string | null)[];
  private readonly traceId: (string | null)[];
  private readonly task: ({ id: string; state: string } | null)[];
  private readonly principal: (string | null)[];
  private readonly principalKind: (string | null)[];
  /** Shapes (shared, frozen) or redacted JSON text: never a value of the call. */
  private readonly args: unknown[];
  private readonly result: unknown[];
  private next = 0;
  private readonly upstreams = new Map<string, LatencyWindow>();
  private readonly tools = new Map<string, ToolEntry>();

  constructor(
    readonly options: RecorderOptions,
    private readonly now: () => number = Date.now,
  ) {
    const size = (this.size = Math.max(1, options.recentCalls));
    this.at = new Float64Array(size);
    this.durationMs = new Float64Array(size);
    // Filled, not holey: the columns keep one element kind as they are written.
    this.tool = new Array<string | undefined>(size).fill(undefined);
    this.upstream = new Array<string | null>(size).fill(null);
    this.revision = new Array<string>(size).fill('');
    this.outcome = new Array<string>(size).fill('');
    this.callId = new Array<string | null>(size).fill(null);
    this.traceId = new Array<string | null>(size).fill(null);
    this.task = new Array<{ id: string; state: string } | null>(size).fill(null);
    this.principal = new Array<string | null>(size).fill(null);
    this.principalKind = new Array<string | null>(size).fill(null);
    this.args = new Array<unknown>(size).fill(null);
    this.result = new Array<unknown>(size).fill(null);
  }

  record(call: FinishedCall): void {
    const now = this.now();
    const tool = this.toolOf(call.tool);
    const at = this.next;
    this.at[at] = now;
    this.durationMs[at] = call.durationMs;
    this.tool[at] = call.tool;
    this.upstream[at] = call.upstream ?? null;
    this.revision[at] = call.revision;
    this.outcome[at] = call.outcome;
    this.callId[at] = call.callId ?? null;
    this.traceId[at] = call.traceId ?? null;
    // Only task calls allocate: a plain call keeps null.
    this.task[at] = call.taskId !== undefined ? { id: call.taskId, state: call.taskState ?? '' } : null;
    this.principal[at] = call.principal ?? null;
    this.principalKind[at] = call.principalKind ?? null;
    const shown = this.options.showArguments;
    this.args[at] = shown ? redactedJson(call.args, MAX_SHOWN_CHARS) : tool.args.shapeOf(call.args);
    this.result[at] = call.result === undefined ? null : shown ? redactedJson(call.result, MAX_SHOWN_CHARS) : tool.result.shapeOf(call.result);
    this.next = (at + 1) % this.size;
    if (call.upstream !== undefined) this.windowOf(call.upstream).record(now, call.durationMs, call.failed);
    tool.window.record(now, call.durationMs, call.failed);
    tool.outcomes.set(call.outcome, (tool.outcomes.get(call.outcome) ?? 0) + 1);
  }

  /** The last calls, newest first. */
  recent(limit = this.size): RecentCall[] {
    const out: RecentCall[] = [];
    for (let i = 1; i <= this.size && out.length < limit; i++) {
      const at = (this.next - i + this.size) % this.size;
      const tool = this.tool[at];
      if (tool === undefined) break;
      out.push({
        at: this.at[at]!,
        tool,
        upstream: this.upstream[at]!,
        revision: this.revision[at]!,
        outcome: this.outcome[at]!,
        durationMs: roundedMs(this.durationMs[at]!),
        callId: this.callId[at]!,
        traceId: this.traceId[at]!,
        task: this.task[at]!,
        principal: shownName(this.principal[at]!, MAX_PRINCIPAL_CHARS),
        principalKind: this.principalKind[at]!,
        arguments: this.args[at],
        result: this.result[at],
      });
    }
    return out;
  }

  upstreamWindow(name: string): WindowSnapshot {
    return (this.upstreams.get(name) ?? new LatencyWindow(...UPSTREAM_SLOTS)).snapshot(this.now());
  }

  toolStats(): ToolStats[] {
    const now = this.now();
    return [...this.tools]
      .map(([tool, s]) => ({ tool, outcomes: Object.fromEntries(s.outcomes), window: s.window.snapshot(now).total }))
      .sort((a, b) => (a.tool < b.tool ? -1 : 1));
  }

  private windowOf(upstream: string): LatencyWindow {
    let window = this.upstreams.get(upstream);
    if (!window) {
      // Upstreams come from configuration (at most 64); reloads may rename some: forget the oldest beyond that.
      if (this.upstreams.size >= 128) this.upstreams.delete(this.upstreams.keys().next().value!);
      window = new LatencyWindow(...UPSTREAM_SLOTS);
      this.upstreams.set(upstream, window);
    }
    return window;
  }

  private toolOf(name: string): ToolEntry {
    let tool = this.tools.get(name);
    if (!tool) {
      const key = this.tools.size >= MAX_TRACKED_TOOLS ? OTHER_TOOLS : name;
      tool = this.tools.get(key);
      if (!tool) {
        tool = { window: new LatencyWindow(...TOOL_SLOTS), outcomes: new Map(), args: new ShapeMemo(), result: new ShapeMemo() };
        this.tools.set(key, tool);
      }
    }
    return tool;
  }
}
