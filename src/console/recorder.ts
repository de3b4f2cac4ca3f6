/**
 * The console's memory of recent calls: the last N calls (a ring), and per
 * upstream and per tool a latency/error window of the last minutes
 * (latency-window.ts). Everything is bounded; `record` runs once per call
 * after its answer is known, and does constant work: no value is kept, only
 * shapes (or, when the operator enabled it, redacted JSON cut at a bound).
 */
import { LatencyWindow, type WindowSnapshot, type WindowStats } from './latency-window.js';
import { redactedJson, shapeOf } from './redact.js';

export interface FinishedCall {
  /** The MCP tool name (bridge) or the OXP tool id (oxp-server). */
  tool: string;
  /** The upstream that served it; undefined when the call never reached one (unknown tool, invalid arguments…). */
  upstream: string | undefined;
  /** The MCP revision of the client (bridge), or `oxp-1.0`. */
  revision: string;
  outcome: string;
  durationMs: number;
  /** The upstream failed (transport, timeout, circuit): counts in the error rate. Tool errors do not. */
  failed: boolean;
  callId?: string | undefined;
  traceId?: string | undefined;
  args: unknown;
  result: unknown;
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

export class CallRecorder {
  private readonly ring: (RecentCall | undefined)[];
  private next = 0;
  private readonly upstreams = new Map<string, LatencyWindow>();
  private readonly tools = new Map<string, { window: LatencyWindow; outcomes: Map<string, number> }>();

  constructor(readonly options: RecorderOptions, private readonly now: () => number = Date.now) {
    this.ring = new Array<RecentCall | undefined>(Math.max(1, options.recentCalls));
  }

  record(call: FinishedCall): void {
    const now = this.now();
    const shown = this.options.showArguments;
    this.ring[this.next] = {
      at: now,
      tool: call.tool,
      upstream: call.upstream ?? null,
      revision: call.revision,
      outcome: call.outcome,
      durationMs: Math.round(call.durationMs * 100) / 100,
      callId: call.callId ?? null,
      traceId: call.traceId ?? null,
      arguments: shown ? redactedJson(call.args, MAX_SHOWN_CHARS) : shapeOf(call.args),
      result: call.result === undefined ? null : shown ? redactedJson(call.result, MAX_SHOWN_CHARS) : shapeOf(call.result),
    };
    this.next = (this.next + 1) % this.ring.length;
    if (call.upstream !== undefined) this.windowOf(call.upstream).record(now, call.durationMs, call.failed);
    const tool = this.toolOf(call.tool);
    tool.window.record(now, call.durationMs, call.failed);
    tool.outcomes.set(call.outcome, (tool.outcomes.get(call.outcome) ?? 0) + 1);
  }

  /** The last calls, newest first. */
  recent(limit = this.ring.length): RecentCall[] {
    const out: RecentCall[] = [];
    for (let i = 1; i <= this.ring.length && out.length < limit; i++) {
      const call = this.ring[(this.next - i + this.ring.length) % this.ring.length];
      if (!call) break;
      out.push(call);
    }
    return out;
  }

  upstreamWindow(name: string): WindowSnapshot {
    return (this.upstreams.get(name) ?? new LatencyWindow(...UPSTREAM_SLOTS)).snapshot(this.now());
  }

  toolStats(): ToolStats[] {
    const now = this.now();
    return [...this.tools].map(([tool, s]) => ({ tool, outcomes: Object.fromEntries(s.outcomes), window: s.window.snapshot(now).total })).sort((a, b) => (a.tool < b.tool ? -1 : 1));
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

  private toolOf(name: string): { window: LatencyWindow; outcomes: Map<string, number> } {
    let tool = this.tools.get(name);
    if (!tool) {
      const key = this.tools.size >= MAX_TRACKED_TOOLS ? OTHER_TOOLS : name;
      tool = this.tools.get(key);
      if (!tool) {
        tool = { window: new LatencyWindow(...TOOL_SLOTS), outcomes: new Map() };
        this.tools.set(key, tool);
      }
    }
    return tool;
  }
}
