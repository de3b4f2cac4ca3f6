/**
 * The MCP → OXP direction's orchestration: one method per MCP operation.
 * Takes the peer's resolved revision as a value and returns ready-to-send,
 * projected replies; faces (HTTP, stdio, any SDK) only carry bytes.
 */
import { decodeCursor, pageAfter } from '../../core/cursor.js';
import { newestRevision, profileFor, type McpRevision } from '../../core/mcp-versions.js';
import { JSONRPC_INTERNAL_ERROR, JSONRPC_INVALID_PARAMS, type McpErrorReply, type McpListToolsResult } from '../../core/mcp-wire.js';
import { credentialsRefusedText } from '../../core/oxp-to-mcp.js';
import { CatalogSnapshot, NoCatalogError } from './catalog-service.js';
import type { JsonObject } from '../../core/json.js';
import { projectListToolsResult } from '../../core/project.js';
import { traceIdFromTraceparent } from '../../core/trace.js';
import { NOOP_SPAN, tracer } from '../../platform/telemetry/tracer.js';
import { endRequestSpan } from './request-span.js';
import type { BridgeOptions, CallAnswer, CallContext, CallReply, Reply } from './call-types.js';
import type { UpstreamSet } from './upstream-set.js';
import type { Metrics } from '../../platform/metrics.js';
import type { Logger } from '../../platform/log.js';
import type { CallLog, CallRunResult } from './call-runner.js';
import { InputValidator } from '../../platform/validation/input-validator.js';
import type { CatalogEntry } from '../../core/catalog.js';
import type { Principal } from '../../core/principal.js';
import type { AccessPolicy } from '../../core/access-policy.js';
import type { CallLimits } from '../../calls/limits/call-limits.js';
import type { CallGate, CallOutcome, CallSteps } from '../../calls/gate.js';
import type { ToolAccess } from './tool-access.js';
import { ToolCall, type ResolvedCall } from './tool-call.js';
import { ViewWatchers } from './view-watchers.js';
import { refusedAnswer, unknownTool, upstreamAnswer } from './call-answers.js';
import { callContext, checkInput, exchangeCredential, resumeOrStart } from './call-inputs.js';
import { callLibrariesPending } from './call-libraries.js';
import type { OxpCallRequest } from '../client/client.js';
import type { AnonymousSettings } from '../../core/principal.js';
import type { Upstream } from './upstream.js';
import type { ToolCallSettings } from '../../core/tool-settings.js';
import type { TaskCalls } from './task-calls.js';

export type { BridgeOptions, CallAnswer, CallContext, CallReply, InputRequiredReply, Reply, ResumeState } from './call-types.js';

/** No catalog was ever loaded: the detail is in the log and /readyz, not in the client's error. */
const CATALOG_UNAVAILABLE: McpErrorReply = {
  code: JSONRPC_INTERNAL_ERROR,
  message: 'The tool catalog is not loaded yet: the tool server is not reachable or not ready. Try again shortly.',
};

/**
 * A name the catalog does not hold while some upstream's catalog is not loaded (or its server said it is not whole
 * yet): the tool may be there, so "try again", not "unknown tool" (the oxp-server answers such an id the same way).
 */
function notLoadedYet(name: string): CallAnswer {
  const message = `Tool ${name} is not known yet: not every tool server's catalog is loaded. Try again shortly.`;
  return { reply: { error: { code: JSONRPC_INTERNAL_ERROR, message } }, outcome: 'catalog_unavailable' };
}

/**
 * The merged catalog — at once, without a promise, while every upstream's is fresh (UpstreamSet.snapshotNow, the
 * common case of every call) — or the error a client gets when none was ever loaded: refused credentials said as such.
 */
function catalogOrError(upstreams: UpstreamSet): CatalogSnapshot | Promise<CatalogSnapshot | McpErrorReply> {
  return (
    upstreams.snapshotNow() ??
    upstreams.snapshot().catch((error: unknown) => {
      if (!(error instanceof NoCatalogError) || error.refusedStatus === undefined) return CATALOG_UNAVAILABLE;
      return { code: JSONRPC_INTERNAL_ERROR, message: `${credentialsRefusedText(error.refusedStatus)} No tools are available until then.` };
    })
  );
}

/** The call gate as the forward direction uses it: catalog entries, MCP replies, the access policy over the catalog. */
export type ForwardGate = CallGate<CatalogEntry, CallReply, ToolAccess>;

export class Bridge {
  private readonly validator: InputValidator;

  /**
   * Every tools/call takes its one step (calls/gate.ts): access, input, limits, the run, and the record of the call
   * (audit, metrics, console, log line), each call recorded once whichever end comes first.
   */
  readonly gate: ForwardGate;

  constructor(
    readonly upstreams: UpstreamSet,
    private readonly log: Logger,
    private options: BridgeOptions,
    private readonly metrics: Metrics | undefined,
    gate: ForwardGate,
  ) {
    this.validator = new InputValidator(options.maxValidators, log);
    this.gate = gate;
  }

  /** Who may see and call which tool (the access policy; a reload replaces it with `access.update`). */
  get access(): ToolAccess {
    return this.gate.access;
  }

  /** Counts the calls access rules and the in-flight cap limit (store: this process, or Redis). */
  get limits(): CallLimits | undefined {
    return this.gate.limits;
  }

  /** Where a request's per-user provider tokens ride (`X-OXP-Authorization-<provider>`): the HTTP face reads them. */
  get authorizationHeaderPrefix(): string {
    return this.options.authorizationHeaderPrefix;
  }

  /** MCP tasks (task-calls.ts), set at start-up when `tasks.enabled`; faces route tools/call and tasks/* through it. */
  tasks: TaskCalls | undefined;

  /** `ttlMs` of a tools/list answer (the console renders answers with it). */
  get listTtlMs(): number {
    return this.options.listTtlMs;
  }

  /** Live settings changed by a configuration reload. */
  updateOptions(changes: Partial<BridgeOptions>): void {
    this.options = { ...this.options, ...changes };
  }

  /**
   * Readiness: every upstream's catalog is loaded and no circuit is open (details per upstream). With a shared task
   * store, whether it answers (`taskStore`): said, but not a reason to leave the Service — plain calls and the tasks
   * this replica holds still work without it, and every replica shares one Redis (docs/production.md).
   */
  get status() {
    const store = this.tasks?.lifecycle.store.availability?.state;
    if (!store) return this.upstreams.status;
    return { ...this.upstreams.status, taskStore: { available: store.available, since: new Date(store.since).toISOString() } };
  }

  /** Called when the tools clients see may have changed. */
  onCatalogChange(listener: () => void): () => void {
    return this.upstreams.onChange(listener);
  }

  private readonly views = new ViewWatchers();

  /** Called when a policy reload changes what a client may see (view-watchers.ts says who is told when). */
  onViewChange(listener: () => void, principal: Principal | undefined | 'everyone'): () => void {
    return this.views.add(listener, principal);
  }

  /** A configuration reload's access policy: later lists and calls follow it; clients whose view changed are told. */
  async updateAccess(policy: AccessPolicy, anonymous: AnonymousSettings | undefined): Promise<void> {
    const snapshot = await this.upstreams.snapshot().catch(() => undefined);
    const visible = (principal: Principal | undefined) =>
      snapshot
        ? this.access
            .toolsFor(snapshot, newestRevision(), principal)
            .map((t) => t.name)
            .join('\n')
        : '';
    const changed = JSON.stringify(this.access.config) !== JSON.stringify(policy.config);
    this.views.around(visible, changed, () => this.access.update(policy, anonymous));
  }

  /** `traceparent`: the request's trace context (the face picks header before `_meta`, see core/trace.ts). */
  async listTools(revision: McpRevision, cursor: string | undefined, traceparent?: string, principal?: Principal): Promise<Reply<McpListToolsResult>> {
    // The MCP request's server span (MCP semantic conventions), the root of the bridge's spans for it.
    const span = tracer().start('tools/list', { kind: 'server', parent: traceparent });
    let reply: Reply<McpListToolsResult> | undefined;
    try {
      reply = await this.list(revision, cursor, principal);
      this.metrics?.countList(revision, 'error' in reply ? 'error' : 'success');
      return reply;
    } finally {
      if (span.recording) endRequestSpan(span, 'tools/list', revision, reply && 'error' in reply ? 'error' : reply ? 'success' : 'failed', reply);
      span.end();
    }
  }

  private async list(revision: McpRevision, cursor: string | undefined, principal: Principal | undefined): Promise<Reply<McpListToolsResult>> {
    const snapshot = await catalogOrError(this.upstreams);
    if (!(snapshot instanceof CatalogSnapshot)) return { error: snapshot };
    let after: string | undefined;
    if (cursor !== undefined) {
      after = decodeCursor(cursor);
      if (after === undefined) return { error: { code: JSONRPC_INVALID_PARAMS, message: 'Invalid cursor' } };
    }
    const tools = this.access.toolsFor(snapshot, revision, principal);
    const { page, next } = pageAfter(tools, (t) => t.name, after, this.options.pageSize);
    // A list that depends on who asks must not be served from a shared cache to someone else (MCP caching rules).
    const cacheScope = this.access.dependsOnCaller ? 'private' : 'public';
    const result: McpListToolsResult = { tools: page, ttlMs: this.options.listTtlMs, cacheScope };
    if (next !== undefined) result.nextCursor = next;
    // Tools are already projected per revision; this fits the envelope fields.
    return { result: projectListToolsResult(result, profileFor(revision)) };
  }

  /** Waits until no tool call is running (stdio's graceful shutdown), up to `deadlineMs`; resolves with the calls left. */
  drain(deadlineMs: number): Promise<number> {
    return this.gate.idle(deadlineMs);
  }

  /** One tools/call through the gate's one step (calls/gate.ts), with this direction's steps; its reply. */
  callTool(revision: McpRevision, name: string, args: unknown, ctx: CallContext): Promise<CallReply> {
    // Not an async function (a frame per call): the gate resolves with the call, its reply read by a module function.
    return this.gate.run(this.start(revision, name, args, ctx), this.steps).then(replyOf);
  }

  /** Records every call still running as cancelled, now: for a process that exits without waiting for them (CallGate.abandonAll). */
  abandonCalls(): number {
    return this.gate.abandonAll();
  }

  /**
   * A tools/call opened through the gate (resolved, decided, checked, charged to its limits) but not run: a task's
   * creation. Either the answer it ends with now (an unknown or denied tool, invalid input, a limit's refusal:
   * recorded as any call's), or the call to run later, detached from the request — its limits held until then, one
   * record at its end — or to drop (`abandon`: no task could be made for it).
   */
  async openCall(
    revision: McpRevision,
    name: string,
    args: unknown,
    ctx: CallContext,
  ): Promise<{ reply: CallReply } | { run: () => Promise<CallReply>; abandon: (outcome: CallOutcome) => void }> {
    const call = this.start(revision, name, args, ctx);
    if (!(await this.gate.open(call, this.steps))) return { reply: call.reply! };
    return {
      run: async () => {
        await this.gate.runOpened(call, this.steps);
        return call.reply!;
      },
      abandon: (outcome) => this.gate.abandon(call, outcome),
    };
  }

  /**
   * What a task about to be created for `name` would call, as this caller may see it: the tool's call settings (task
   * support, deadlines), or undefined for a tool this caller cannot call (unknown, or hidden by the access policy),
   * whose call then gets the usual answer.
   */
  async taskTarget(name: string, principal: Principal | undefined): Promise<ToolCallSettings | undefined> {
    const snapshot = await catalogOrError(this.upstreams);
    const target = snapshot instanceof CatalogSnapshot ? this.targetIn(snapshot, name) : undefined;
    if (!target || 'answer' in target || !this.gate.access.decide(target.entry, principal).allow) return undefined;
    return this.upstreams.toolSettings(target.entry);
  }

  /** The audit trail's record of a task's creation, through the gate (the task's call makes its own record at its end). */
  recordTaskCreated(revision: McpRevision, name: string, args: unknown, ctx: CallContext, taskId: string, callId: string): void {
    // No span of its own: the record is of the call whose span ends with it.
    const call = new ToolCall(revision, name, args, { ...ctx, task: { id: taskId } }, NOOP_SPAN);
    const entry = this.upstreams.lastSnapshot?.entry(name);
    call.callId = callId;
    call.oxpId = entry?.callId;
    call.upstream = entry?.upstream;
    this.gate.note(call, 'task_created');
  }

  /** A call begins: its span (the MCP request's server span, named after the tool only once it is known: client names are unbounded), its clock. */
  private start(revision: McpRevision, name: string, args: unknown, ctx: CallContext): ToolCall {
    const span = tracer().start('tools/call', { kind: 'server', parent: ctx.traceparent });
    const call = new ToolCall(revision, name, args, ctx, span);
    call.started = performance.now();
    return call;
  }

  /** This direction's steps of the gate's one step: each sets what the call ends with when it ends there. */
  private readonly steps: CallSteps<CatalogEntry, ToolCall> = {
    resolve: (call) => {
      const libraries = callLibrariesPending(this.log);
      // The first calls after start-up wait for what they run on (call-libraries.ts) rather than load it as installed.
      if (libraries) return libraries.then(() => this.steps.resolve(call));
      const snapshot = catalogOrError(this.upstreams);
      return snapshot instanceof Promise ? snapshot.then((s) => this.resolveIn(call, s)) : this.resolveIn(call, snapshot);
    },
    check: (call) => {
      const checked = checkInput(call as ResolvedCall, this.validator);
      if ('answer' in checked) {
        call.settle(checked.answer);
        return false;
      }
      call.clientInput = checked.clientInput;
      call.input = checked.input;
      return true;
    },
    refused: (call, refusal) => call.settle(this.suggesting(call, refusedAnswer(call as ResolvedCall, refusal))),
    run: (call) => this.callAdmitted(call as ResolvedCall),
  };

  /** The catalog entry a call names, its upstream set on the call; or undefined, the call's answer set (no catalog, an unknown tool). */
  private resolveIn(call: ToolCall, snapshot: CatalogSnapshot | McpErrorReply): CatalogEntry | undefined {
    const target =
      snapshot instanceof CatalogSnapshot
        ? this.targetIn(snapshot, call.toolName)
        : {
            answer: {
              reply: { error: snapshot },
              outcome: snapshot === CATALOG_UNAVAILABLE ? ('catalog_unavailable' as const) : ('upstream_auth_failed' as const),
            },
          };
    if ('answer' in target) {
      call.settle(this.suggesting(call, target.answer));
      return undefined;
    }
    call.target = target.upstream;
    return target.entry;
  }

  /** An unknown (or hidden) tool's answer, naming the closest tool this caller sees at its revision (tool-access.ts). */
  private suggesting(call: ToolCall, answer: CallAnswer): CallAnswer {
    const snapshot = this.upstreams.lastSnapshot;
    if ((answer.outcome !== 'unknown_tool' && answer.outcome !== 'denied') || !snapshot) return answer;
    const guess = this.access.closestVisible(snapshot, call.revision, call.caller, call.toolName);
    return guess === undefined ? answer : { ...answer, reply: unknownTool(call.toolName, 'unknown_tool', guess).reply };
  }

  /**
   * A call the gate let through, its input checked: credentials, requirements, the upstream call with its retries and
   * progress ticks, and its answer (call-inputs.ts), settled on the call. One async frame for the whole run: a step
   * that answers at once (no token exchange, no resumed call) is not awaited, and the OXP call is awaited here, not in
   * a frame of its own.
   */
  private async callAdmitted(call: ResolvedCall): Promise<void> {
    const clientInput = call.clientInput!;
    const credential = call.target.exchanger ? await exchangeCredential(call, this.log) : undefined;
    if (credential && 'answer' in credential) return call.settle(credential.answer);
    const context = callContext(call, this.log, credential?.authorization);
    if ('answer' in context) return call.settle(context.answer);
    let resumed = resumeOrStart(call, clientInput, this.options, this.log);
    if (resumed instanceof Promise) resumed = await resumed;
    if (resumed) return call.settle(resumed);
    const { ctx, target: upstream } = call;
    // The call's own logger (ToolCall.logger) is a child of this one, made only when a line is written.
    call.baseLog = this.log;
    const ticker = ctx.progress ? this.startProgress(ctx.progress, call.toolName, call.started, call) : undefined;
    let run: CallRunResult;
    try {
      const request = oxpRequest(call, context.context, credential?.bearerToken);
      // The tool's own deadline (toolSettings), or the task's (taskCallTimeoutMs), else the upstream's.
      const deadlineMs = ctx.deadlineMs ?? this.upstreams.toolSettings(call.tool).callTimeoutMs;
      run = await upstream.runner.run(request, call, ctx.signal, call.span, deadlineMs);
    } finally {
      if (ticker) clearInterval(ticker);
    }
    // Read once, from the tools/call's start: the log line's duration_ms, the console's and the audit trail's (done()).
    if (!call.unanswered) {
      call.loggedMs = performance.now() - call.started;
      call.run = run;
    }
    // The server no longer knows a tool we listed: our catalog is stale.
    if (run.outcome.kind === 'unknown_tool') upstream.catalog.refresh().catch(() => undefined);
    call.settle(upstreamAnswer(call, run.outcome, clientInput, ctx));
  }

  /** The catalog entry and upstream a name calls, or the answer an unknown tool gets. */
  private targetIn(snapshot: CatalogSnapshot, name: string): { entry: CatalogEntry; upstream: Upstream } | { answer: CallAnswer } {
    const entry = snapshot.entry(name);
    const upstream = this.upstreams.get(entry?.upstream);
    if (!entry || !upstream)
      return { answer: this.upstreams.all.some((u) => !u.catalog.ready || u.catalog.incomplete) ? notLoadedYet(name) : unknownTool(name, 'unknown_tool') };
    return { entry, upstream };
  }

  private startProgress(progress: NonNullable<CallContext['progress']>, name: string, started: number, log: CallLog): NodeJS.Timeout {
    let ticks = 0;
    return setInterval(() => {
      ticks += 1;
      const seconds = Math.round((performance.now() - started) / 1000);
      progress(ticks, `Waiting for ${name} (${seconds} s)`).catch((error: unknown) =>
        log.logger().debug({ err: String(error) }, 'progress notification not delivered'),
      );
    }, this.options.progressIntervalMs);
  }
}

/** What a call the gate ran was answered. */
function replyOf(call: ToolCall): CallReply {
  return call.reply!;
}

/** The OXP request of an admitted call: its tool, call_id, input as sent, trace, context and per-user token. */
function oxpRequest(call: ResolvedCall, context: JsonObject | undefined, bearerToken: string | undefined): OxpCallRequest {
  const { ctx, span, target: upstream } = call;
  const request: OxpCallRequest = { toolId: call.tool.callId, callId: call.oxpCallId!, input: call.input! };
  // OXP trace_id: the span's trace (a new one when the client sent none), else the client's as received.
  const traceId = span.traceId ?? traceIdFromTraceparent(ctx.traceparent);
  if (traceId) request.traceId = traceId;
  if (context) request.context = context;
  if (bearerToken !== undefined) request.bearerToken = bearerToken;
  const wait = ctx.connectionWait;
  if (wait) request.onConnectionWait = (waiting) => wait(upstream.name, waiting);
  return request;
}
