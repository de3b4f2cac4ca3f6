/**
 * The MCP → OXP direction's orchestration: one method per MCP operation.
 * Takes the peer's resolved revision as a value and returns ready-to-send,
 * projected replies; fronts (HTTP, stdio, any SDK) only carry bytes.
 */
import { createHash, randomUUID } from 'node:crypto';
import { decodeCursor, pageAfter } from '../../core/cursor.js';
import { isPlainObject, type JsonObject } from '../../core/json.js';
import { MODERN_VERSION, profileFor, type McpVersion } from '../../core/mcp-versions.js';
import { JSONRPC_INTERNAL_ERROR, JSONRPC_INVALID_PARAMS, type McpCallToolResult, type McpErrorReply, type McpListToolsResult } from '../../core/mcp-wire.js';
import { bridgeToolError, credentialsRefusedText, toMcpCallReply, unsafeLinkReply, urlElicitationError, urlElicitationFor } from '../../core/oxp-to-mcp.js';
import { CatalogSnapshot, NoCatalogError } from './catalog-service.js';
import { mayPollCheckUrl, vetChallenges } from '../../core/authorization-links.js';
import { projectCallToolResult, projectListToolsResult } from '../../core/project.js';
import { traceIdFromTraceparent } from '../../core/trace.js';
import { logIds, NOOP_SPAN, tracer } from '../../platform/telemetry/tracer.js';
import { endRequestSpan } from './request-span.js';
import type { BridgeOptions, CallAnswer, CallContext, CallReply, Reply, ResumeState } from './call-types.js';
import type { OxpCallOutcome } from '../../core/oxp-wire.js';
import type { UpstreamSet } from './upstream-set.js';
import type { Metrics } from '../../platform/metrics.js';
import type { Logger } from '../../platform/log.js';
import { InputValidator } from '../../platform/validation/input-validator.js';
import { InFlight } from '../../platform/shared/in-flight.js';
import type { CallPrincipal } from './requirement-values.js';
import { buildCallContext } from '../../core/requirements.js';
import type { CatalogEntry } from '../../core/catalog.js';
import type { Principal } from '../../core/principal.js';
import { AccessPolicy } from '../../core/access-policy.js';
import { CallLimits } from '../../calls/limits/call-limits.js';
import { CallGate, limitRefusalText, type GateRefusal } from '../../calls/gate.js';
import { ToolAccess } from './tool-access.js';
import { ToolCall, type ResolvedCall } from './tool-call.js';
import { callerTokenOf } from './caller-token.js';
import type { OxpCallRequest } from '../client/client.js';
import type { AnonymousSettings } from '../../core/principal.js';
import type { Upstream } from './upstream.js';
import type { ToolCallSettings } from '../../core/tool-settings.js';
import { taskStateOf, type TaskCalls } from './task-calls.js';

export type { BridgeOptions, CallAnswer, CallContext, CallReply, InputRequiredReply, Reply, ResumeState } from './call-types.js';

/** No catalog was ever loaded: the detail is in the log and /readyz, not in the client's error. */
const CATALOG_UNAVAILABLE: McpErrorReply = { code: JSONRPC_INTERNAL_ERROR, message: 'The tool server is not reachable yet; no tools are available.' };

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

  /** Every tools/call passes through it: access, limits, and the record of the call (audit, metrics, console). */
  readonly gate: ForwardGate;

  constructor(
    readonly upstreams: UpstreamSet,
    private readonly log: Logger,
    private options: BridgeOptions,
    private readonly metrics?: Metrics,
    gate?: ForwardGate,
  ) {
    this.validator = new InputValidator(options.maxValidators, log);
    this.gate =
      gate ??
      new CallGate({
        access: new ToolAccess(new AccessPolicy()),
        limits: new CallLimits(async () => new (await import('../../calls/limits/memory-limit-store.js')).MemoryLimitStore()),
        metrics,
        log,
      });
  }

  /** Who may see and call which tool (the access policy; a reload replaces it with `access.update`). */
  get access(): ToolAccess {
    return this.gate.access;
  }

  /** Counts the calls access rules limit (store: this process, or Redis). */
  get limits(): CallLimits {
    // Always set: the constructor's gate, or the command's (forward.ts), counts with a store.
    return this.gate.limits!;
  }

  /** Where a request's per-user provider tokens ride (`X-OXP-Authorization-<provider>`): the HTTP face reads them. */
  get authorizationHeaderPrefix(): string {
    return this.options.authorizationHeaderPrefix;
  }

  /** MCP tasks (task-calls.ts), set at start-up when `tasks.enabled`; fronts route tools/call and tasks/* through it. */
  tasks: TaskCalls | undefined;

  /** `ttlMs` of a tools/list answer (the console renders answers with it). */
  get listTtlMs(): number {
    return this.options.listTtlMs;
  }

  /** Live settings changed by a configuration reload. */
  updateOptions(changes: Partial<BridgeOptions>): void {
    this.options = { ...this.options, ...changes };
  }

  /** Readiness: every upstream's catalog is loaded and no circuit is open (details per upstream). */
  get status() {
    return this.upstreams.status;
  }

  /** Called when the tools clients see may have changed. */
  onCatalogChange(listener: () => void): () => void {
    return this.upstreams.onChange(listener);
  }

  private readonly viewListeners = new Set<{ listener: () => void; principal: Principal | undefined; all: boolean }>();

  /**
   * Called when a policy reload changes what a client may see: a connection of one principal (stdio: nobody
   * authenticated, `principal` undefined) is told only when its own view changed; `everyone` (HTTP subscriptions,
   * whose subscribers the SDK holds) is told whenever any view may have changed.
   */
  onViewChange(listener: () => void, principal: Principal | undefined | 'everyone'): () => void {
    const entry = principal === 'everyone' ? { listener, principal: undefined, all: true } : { listener, principal, all: false };
    this.viewListeners.add(entry);
    return () => this.viewListeners.delete(entry);
  }

  /** A configuration reload's access policy: later lists and calls follow it; clients whose view changed are told. */
  async updateAccess(policy: AccessPolicy, anonymous: AnonymousSettings | undefined): Promise<void> {
    const snapshot = await this.upstreams.snapshot().catch(() => undefined);
    const visible = (principal: Principal | undefined) =>
      snapshot
        ? this.access
            .toolsFor(snapshot, MODERN_VERSION, principal)
            .map((t) => t.name)
            .join('\n')
        : '';
    const listeners = [...this.viewListeners];
    const before = listeners.map((l) => (l.all ? '' : visible(l.principal)));
    const changed = JSON.stringify(this.access.config) !== JSON.stringify(policy.config);
    this.access.update(policy, anonymous);
    listeners.forEach((l, i) => {
      if (l.all ? changed : visible(l.principal) !== before[i]) l.listener();
    });
  }

  /** `traceparent`: the request's trace context (the front picks header before `_meta`, see core/trace.ts). */
  async listTools(version: McpVersion, cursor: string | undefined, traceparent?: string, principal?: Principal): Promise<Reply<McpListToolsResult>> {
    // The MCP request's server span (MCP semantic conventions), the root of the bridge's spans for it.
    const span = tracer().start('tools/list', { kind: 'server', parent: traceparent });
    let reply: Reply<McpListToolsResult> | undefined;
    try {
      reply = await this.list(version, cursor, principal);
      this.metrics?.countList(version, 'error' in reply ? 'error' : 'success');
      return reply;
    } finally {
      if (span.recording) endRequestSpan(span, 'tools/list', version, reply && 'error' in reply ? 'error' : reply ? 'success' : 'failed', reply);
      span.end();
    }
  }

  private async list(version: McpVersion, cursor: string | undefined, principal: Principal | undefined): Promise<Reply<McpListToolsResult>> {
    const snapshot = await catalogOrError(this.upstreams);
    if (!(snapshot instanceof CatalogSnapshot)) return { error: snapshot };
    let after: string | undefined;
    if (cursor !== undefined) {
      after = decodeCursor(cursor);
      if (after === undefined) return { error: { code: JSONRPC_INVALID_PARAMS, message: 'Invalid cursor' } };
    }
    const tools = this.access.toolsFor(snapshot, version, principal);
    const { page, next } = pageAfter(tools, (t) => t.name, after, this.options.pageSize);
    // A list that depends on who asks must not be served from a shared cache to someone else (MCP caching rules).
    const cacheScope = this.access.dependsOnCaller ? 'private' : 'public';
    const result: McpListToolsResult = { tools: page, ttlMs: this.options.listTtlMs, cacheScope };
    if (next !== undefined) result.nextCursor = next;
    // Tools are already projected per revision; this fits the envelope fields.
    return { result: projectListToolsResult(result, profileFor(version)) };
  }

  private readonly calls = new InFlight();

  /** Waits until no tool call is running (stdio's graceful shutdown), up to `deadlineMs`; resolves with the calls left. */
  drain(deadlineMs: number): Promise<number> {
    return this.calls.idle(deadlineMs);
  }

  async callTool(version: McpVersion, name: string, args: unknown, ctx: CallContext): Promise<CallReply> {
    const call = this.startCall(version, name, args, ctx);
    return this.finishCall(call, () => this.call(call));
  }

  /** A call begins: its span, its one clock (its log line, the console and the audit trail read their duration from `started`). */
  private startCall(version: McpVersion, name: string, args: unknown, ctx: CallContext): ToolCall {
    this.calls.enter();
    // The MCP request's server span; like the metric, named after the tool only once the tool is known (client names are unbounded).
    const span = tracer().start('tools/call', { kind: 'server', parent: ctx.traceparent });
    const call = new ToolCall(version, name, args, ctx, span);
    call.started = performance.now();
    this.running.add(call);
    return call;
  }

  /** Runs the rest of a call and records it once, whichever way it ends. */
  private async finishCall(call: ToolCall, rest: () => Promise<CallAnswer>): Promise<CallReply> {
    try {
      const answer = await rest();
      this.record(call, answer);
      return answer.reply;
    } catch (error) {
      // No answer is owed (the client cancelled or went away): still recorded (the gate's log line, metrics, console, audit).
      this.recordUnanswered(call, call.ctx.signal?.aborted ? 'cancelled' : 'internal_error');
      throw error;
    }
  }

  /** Calls running now, each recorded once: by its own end, or by abandonCalls. */
  private readonly running = new Set<ToolCall>();

  /**
   * Records every call still running as cancelled, now, as a client's cancellation is (its log line, metrics,
   * console, audit record): for a process that exits without waiting for them. Returns how many there were. Their
   * replies, if they ever come, are not recorded again.
   */
  abandonCalls(): number {
    const abandoned = [...this.running];
    for (const call of abandoned) this.recordUnanswered(call, 'cancelled');
    return abandoned.length;
  }

  /** A call that ended without an answer: what is known of it (its tool and upstream once resolved). */
  private recordUnanswered(call: ToolCall, outcome: 'cancelled' | 'internal_error'): void {
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
   * The call's span, then the gate's record of it (its limit given back; metrics, console, audit, log line), once,
   * whichever end comes first. `durationMs`: read when the upstream answered, when it did (else the gate reads the clock).
   */
  private record(call: ToolCall, answer: CallAnswer | undefined, outcome = answer?.outcome ?? 'cancelled', durationMs = answer?.durationMs): void {
    if (call.recorded) return;
    call.recorded = true;
    this.running.delete(call);
    call.settle(answer, outcome, durationMs);
    // A task's call: the state its end leaves the task in (the console shows it).
    if (call.taskId !== undefined)
      call.taskState = outcome === 'cancelled' ? 'cancelled' : answer ? taskStateOf(answer.reply, profileFor(call.revision).tasks) : 'failed';
    const upstream = answer?.upstream;
    const { span } = call;
    if (span.recording)
      endRequestSpan(span, 'tools/call', call.revision, outcome, answer?.reply, upstream !== undefined ? { tool: call.toolName, upstream } : undefined);
    span.end();
    this.gate.finish(call);
    this.calls.leave();
  }

  /**
   * A tools/call opened through the gate (resolved, decided, charged to its limit) but not run: a task's creation.
   * Either the answer it ends with now (an unknown or denied tool, a limit's refusal: recorded as any call's), or the
   * call to run later, detached from the request — its limit held until then, one record at its end — or to drop
   * (`abandon`: no task could be made for it).
   */
  async openCall(
    version: McpVersion,
    name: string,
    args: unknown,
    ctx: CallContext,
  ): Promise<{ reply: CallReply } | { run: () => Promise<CallReply>; abandon: (outcome: string) => void }> {
    const call = this.startCall(version, name, args, ctx);
    let ended: CallAnswer | undefined;
    try {
      const target = await this.resolve(call.toolName);
      if ('answer' in target) ended = target.answer;
      else {
        call.target = target.upstream;
        let pass = this.gate.open(call, target.entry);
        if (pass instanceof Promise) pass = await pass;
        if (!pass.ok) ended = this.refused(call as ResolvedCall, pass);
      }
    } catch (error) {
      this.recordUnanswered(call, 'internal_error');
      throw error;
    }
    if (ended) {
      this.record(call, ended);
      return { reply: ended.reply };
    }
    return {
      run: () => this.finishCall(call, () => this.callAdmitted(call as ResolvedCall)),
      abandon: (outcome) => this.record(call, undefined, outcome),
    };
  }

  /**
   * What a task about to be created for `name` would call, as this caller may see it: the tool's call settings (task
   * support, deadlines), or undefined for a tool this caller cannot call (unknown, or hidden by the access policy),
   * whose call then gets the usual answer.
   */
  async taskTarget(name: string, principal: Principal | undefined): Promise<ToolCallSettings | undefined> {
    const target = await this.resolve(name);
    if ('answer' in target || !this.gate.access.decide(target.entry, principal).allow) return undefined;
    return this.upstreams.toolSettings(target.entry);
  }

  /** The audit trail's record of a task's creation, through the gate (the task's call makes its own record at its end). */
  recordTaskCreated(version: McpVersion, name: string, args: unknown, ctx: CallContext, taskId: string, callId: string): void {
    // No span of its own: the record is of the call whose span ends with it.
    const call = new ToolCall(version, name, args, { ...ctx, task: { id: taskId } }, NOOP_SPAN);
    const entry = this.upstreams.lastSnapshot?.entry(name);
    call.callId = callId;
    call.oxpId = entry?.callId;
    call.upstream = entry?.upstream;
    this.gate.note(call, 'task_created');
  }

  /** The call itself: the tool resolved, passed through the gate (access, limits), then run. */
  private async call(call: ToolCall): Promise<CallAnswer> {
    const target = await this.resolve(call.toolName);
    if ('answer' in target) return target.answer;
    call.target = target.upstream;
    let pass = this.gate.open(call, target.entry);
    if (pass instanceof Promise) pass = await pass;
    const resolved = call as ResolvedCall;
    if (!pass.ok) return this.refused(resolved, pass);
    return this.callAdmitted(resolved);
  }

  /** A call its rule's limits let through: input, credentials, requirements, the upstream call and its answer. */
  private async callAdmitted(call: ResolvedCall): Promise<CallAnswer> {
    const { ctx } = call;
    const checked = this.checkInput(call);
    if ('answer' in checked) return checked.answer;
    const credential = call.target.exchanger ? await this.exchangeCredential(call) : undefined;
    if (credential && 'answer' in credential) return credential.answer;
    const context = this.callContext(call, credential?.authorization);
    if ('answer' in context) return context.answer;
    const resumed = await this.resumeOrStart(call, checked.clientInput);
    if (resumed) return resumed;
    const run = await this.runUpstream(call, { input: checked.input, context: context.context, bearerToken: credential?.bearerToken });
    return this.answer(call, run, checked.clientInput, ctx);
  }

  /** The catalog entry and upstream a name calls, or the answer an unknown tool gets. */
  private async resolve(name: string): Promise<{ entry: CatalogEntry; upstream: Upstream } | { answer: CallAnswer }> {
    const snapshot = await catalogOrError(this.upstreams);
    if (!(snapshot instanceof CatalogSnapshot))
      return { answer: { reply: { error: snapshot }, outcome: snapshot === CATALOG_UNAVAILABLE ? 'catalog_unavailable' : 'upstream_auth_failed' } };
    const entry = snapshot.entry(name);
    const upstream = this.upstreams.get(entry?.upstream);
    if (!entry || !upstream) return { answer: unknownTool(name, 'unknown_tool') };
    return { entry, upstream };
  }

  /**
   * A call the gate refused, in MCP terms. Denied: exactly the unknown tool's answer, before anything (input checks
   * included) could tell the tool exists; the audit trail still names the hidden tool and the rule. Limited: a tool
   * error saying when to try again.
   */
  private refused(call: ResolvedCall, refusal: GateRefusal): CallAnswer {
    if (refusal.reason === 'denied')
      return { ...unknownTool(call.toolName, 'denied'), oxpId: call.tool.callId, upstream: call.target.name, ...(call.rule ? { rule: call.rule } : {}) };
    const meta = { kind: refusal.reason, retry_after_ms: refusal.retryAfterSeconds * 1000 };
    return done(call, this.project(bridgeToolError(limitRefusalText(refusal, call.toolKey), meta), call), refusal.reason);
  }

  /** The client's arguments checked against the schema it was shown; the input sent has the fixed arguments added. */
  private checkInput(call: ResolvedCall): { clientInput: JsonObject; input: JsonObject } | { answer: CallAnswer } {
    const { tool: entry, args } = call;
    if (args !== undefined && !isPlainObject(args))
      return { answer: done(call, { error: { code: JSONRPC_INVALID_PARAMS, message: 'Tool arguments must be an object' } }, 'invalid_params') };
    const clientInput = (args ?? {}) as JsonObject;
    const parameterErrors = this.validator.check({ id: entry.callId, inputSchema: entry.tool.inputSchema }, clientInput);
    if (parameterErrors) {
      const reply = toMcpCallReply({ kind: 'invalid_input', message: 'Some input parameters are invalid.', parameterErrors }, entry);
      return { answer: done(call, this.project(reply, call), 'invalid_input') };
    }
    return { clientInput, input: entry.fixedArguments ? { ...clientInput, ...entry.fixedArguments } : clientInput };
  }

  /**
   * The caller's own credentials for this upstream, by token exchange (RFC 8693): the caller's access token is
   * exchanged (cached per user) for one meant for the upstream, sent as its bearer token or as a provider token.
   * The caller's token itself never goes upstream. A caller without an OAuth token, or an exchange that fails, gets a
   * tool error saying to sign in again (or to try later), never a protocol error.
   */
  private async exchangeCredential(call: ResolvedCall): Promise<{ bearerToken?: string; authorization?: Record<string, string> } | { answer: CallAnswer }> {
    const { target: upstream, ctx } = call;
    const exchanger = upstream.exchanger!;
    const use = upstream.settings.tokenExchange!.use;
    // A provider token is exchanged only for tools that declare that provider.
    if (use.as === 'authorization' && !call.tool.tool.requirements?.authorization?.some((a) => a.id.toLowerCase() === use.provider.toLowerCase())) return {};
    const subjectToken = callerTokenOf(ctx.principal);
    const result = subjectToken
      ? await exchanger.exchange(subjectToken, ctx.principal!.subject, upstream.name, ctx.signal)
      : ({
          ok: false,
          kind: 'refused',
          message: `The tool ${call.toolName} acts with your own account at its tool server: sign in with OAuth to use it.`,
        } as const);
    if (!result.ok) {
      const outcome = result.kind === 'refused' ? 'token_exchange_refused' : 'token_exchange_unavailable';
      this.log.info(
        { tool: call.toolName, upstream: upstream.name, outcome, ...(ctx.principal ? { principal: ctx.principal.name } : {}) },
        'token exchange failed',
      );
      return { answer: done(call, this.project(bridgeToolError(result.message, { kind: outcome }), call), outcome) };
    }
    return use.as === 'bearer' ? { bearerToken: result.token } : { authorization: { [use.provider.toLowerCase()]: result.token } };
  }

  /** The OXP context the tool's requirements ask for (user id, secrets, authorization), or the answer saying what is missing. */
  private callContext(call: ResolvedCall, exchanged?: Record<string, string>): { context: JsonObject | undefined } | { answer: CallAnswer } {
    const { tool: entry, target: upstream, toolName: name, ctx } = call;
    const principal: CallPrincipal = {};
    // An authenticated principal's subject is the OXP user_id; nobody authenticated leaves requirements.userId.
    if (ctx.principal && ctx.principal.kind !== 'anonymous') principal.userId = ctx.principal.subject;
    const tokens = ctx.authorization ? upstream.values.grantedTokens(ctx.authorization) : undefined;
    // An exchanged provider token wins over one the client sent for the same provider.
    if (exchanged) principal.authorization = new Map([...(tokens ?? []), ...Object.entries(exchanged)]);
    else if (tokens) principal.authorization = tokens;
    const decision = buildCallContext(entry.tool, upstream.values.forCall(principal));
    if (decision.ok) return { context: decision.context };
    const grantHint =
      upstream.settings.requirements.granted && decision.missingSecrets.length
        ? ` Its upstream (${upstream.name}) receives a global secret only when its upstreams[] entry grants it (grants.secrets) or sets it (secrets).`
        : '';
    const outcome: OxpCallOutcome = {
      kind: 'requirements_missing',
      message: `The tool ${name} cannot run until the bridge is configured for it.${grantHint}`,
      authorization: [],
      userId: decision.missingUserId,
      secrets: decision.missingSecrets,
    };
    this.log.warn({ tool: name, missing_secrets: decision.missingSecrets, missing_user_id: decision.missingUserId }, 'tool requirements not configured');
    return { answer: done(call, this.project(toMcpCallReply(outcome, entry), call), 'requirements_missing') };
  }

  /**
   * Gives the call its OXP call_id: a new one, or, for a 2026-07-28 retry after authorization, the interrupted
   * call's (its idempotency key), once the user's answer is checked and the check_url polled. Returns an answer
   * when the retry ends here.
   */
  private async resumeOrStart(call: ResolvedCall, clientInput: JsonObject): Promise<CallAnswer | undefined> {
    const { ctx } = call;
    // A task's call_id is fixed at its creation: a re-drive sends the same one (idempotent upstream).
    call.oxpCallId = ctx.callId ?? randomUUID();
    if (!ctx.resume) return undefined;
    const { state, accepted } = ctx.resume;
    if (state.tool !== call.toolName || state.args !== argsDigest(clientInput))
      return done(call, { error: { code: JSONRPC_INVALID_PARAMS, message: 'requestState does not belong to this tool call' } }, 'invalid_params');
    if (!accepted) return done(call, this.project(declined(call.tool), call), 'authorization_declined');
    const upstream = call.target;
    // Sealed states carry only vetted check_urls; checked again because the allowed origins may have changed since.
    if (state.checkUrl && mayPollCheckUrl(state.checkUrl, upstream.settings.url, upstream.settings.authorizationCheckOrigins)) {
      const { authorizationPollMs, authorizationWaitMs } = this.options;
      const status = await upstream.client.waitForAuthorization(state.checkUrl, authorizationPollMs, authorizationWaitMs, ctx.signal);
      this.log.info({ tool: call.toolName, call_id: state.callId, status }, 'authorization check');
    }
    call.oxpCallId = state.callId;
    return undefined;
  }

  /** The OXP call with its retries and progress ticks; what it answered is kept for the call's log line. */
  private async runUpstream(call: ResolvedCall, sent: { input: JsonObject; context: JsonObject | undefined; bearerToken: string | undefined }) {
    const { tool: entry, target: upstream, toolName: name, oxpCallId: callId, ctx, span } = call;
    // OXP trace_id: the span's trace (a new one when the client sent none), else the client's as received.
    const traceId = span.traceId ?? traceIdFromTraceparent(ctx.traceparent);
    const callFields = () => ({
      call_id: callId,
      ...logIds(span, traceId),
      tool: name,
      upstream: upstream.name,
      oxp_tool: entry.callId,
      protocol_version: call.revision,
      ...(ctx.principal ? { principal: ctx.principal.name } : {}),
      ...(ctx.task?.id !== undefined ? { task_id: ctx.task.id } : {}),
    });
    // The per-call child logger is made on first use: a pino child serialises its bindings at once,
    // a cost every call would pay even when the level drops every line.
    let callLog: Logger | undefined;
    const log = (call.log = () => (callLog ??= this.log.child(callFields())));
    const ticker = ctx.progress ? this.startProgress(ctx.progress, name, call.started, log) : undefined;
    const request: OxpCallRequest = { toolId: entry.callId, callId: callId!, input: sent.input };
    if (traceId) request.traceId = traceId;
    if (sent.context) request.context = sent.context;
    if (sent.bearerToken !== undefined) request.bearerToken = sent.bearerToken;
    try {
      // The tool's own deadline (toolSettings), or the task's (taskCallTimeoutMs), else the upstream's.
      const deadlineMs = ctx.deadlineMs ?? this.upstreams.toolSettings(entry).callTimeoutMs;
      const run = await upstream.runner.run(request, log, ctx.signal, span, deadlineMs);
      // Read once, from the tools/call's start: the log line's duration_ms, the console's and the audit trail's (done()).
      if (!call.unanswered) {
        call.loggedMs = performance.now() - call.started;
        call.run = run;
      }
      return run;
    } finally {
      if (ticker) clearInterval(ticker);
    }
  }

  /** The upstream's outcome as the client's reply: links vetted, URL authorization asked for where the revision can. */
  private answer(call: ResolvedCall, run: { outcome: OxpCallOutcome }, clientInput: JsonObject, ctx: CallContext): CallAnswer {
    const { tool: entry, target: upstream, revision: version } = call;
    const log = call.log!;
    const vetted = vetChallenges(run.outcome, { upstreamUrl: upstream.settings.url, allowedOrigins: upstream.settings.authorizationCheckOrigins });
    if (!vetted.ok) {
      log().warn({ outcome: 'unsafe_authorization_link' }, vetted.message);
      return done(call, this.project(unsafeLinkReply(vetted.message), call), 'unsafe_authorization_link');
    }
    if (vetted.ignoredCheckOrigins.length) {
      const why = "authorization check_url on an origin other than the upstream's ignored (allow it with authorizationCheckOrigins)";
      log().warn({ origins: vetted.ignoredCheckOrigins }, why);
    }
    const outcome = vetted.outcome;
    // The server no longer knows a tool we listed: our catalog is stale.
    if (outcome.kind === 'unknown_tool') upstream.catalog.refresh().catch(() => undefined);
    const elicitation = ctx.urlElicitation ? urlElicitationFor(outcome, entry) : undefined;
    if (elicitation) {
      const profile = profileFor(version);
      const callId = call.oxpCallId!;
      // A 2025-11-25 task whose client takes elicitation requests (stdio) asks through the task instead of -32042.
      if (profile.has.inputRequired || ctx.inputViaTask) {
        const resume: ResumeState = { callId, tool: call.toolName, args: argsDigest(clientInput), key: elicitation.key };
        if (elicitation.checkUrl) resume.checkUrl = elicitation.checkUrl;
        return done(call, { inputRequired: { key: elicitation.key, message: elicitation.message, url: elicitation.url, resume } }, 'input_required');
      }
      if (profile.has.urlElicitationError)
        return done(call, { error: urlElicitationError(elicitation, `${elicitation.key}-${callId}`) }, 'url_elicitation_required');
    }
    return done(call, this.project(toMcpCallReply(outcome, entry), call), outcome.kind);
  }

  private project(reply: Reply<McpCallToolResult>, call: ResolvedCall): Reply<McpCallToolResult> {
    return 'error' in reply ? reply : { result: projectCallToolResult(reply.result, profileFor(call.revision), call.tool.tool.outputSchema) };
  }

  private startProgress(progress: NonNullable<CallContext['progress']>, name: string, started: number, log: () => Logger): NodeJS.Timeout {
    let ticks = 0;
    return setInterval(() => {
      ticks += 1;
      const seconds = Math.round((performance.now() - started) / 1000);
      progress(ticks, `Waiting for ${name} (${seconds} s)`).catch((error: unknown) =>
        log().debug({ err: String(error) }, 'progress notification not delivered'),
      );
    }, this.options.progressIntervalMs);
  }
}

/** A reply that carries the upstream and, once given, the call_id (the console shows both). */
function done(call: ResolvedCall, reply: CallReply, outcome: string): CallAnswer {
  const answer: CallAnswer = { reply, outcome, upstream: call.target.name, callId: call.oxpCallId, oxpId: call.tool.callId };
  if (call.rule) answer.rule = call.rule;
  if (call.loggedMs !== undefined) answer.durationMs = call.loggedMs;
  return answer;
}

/** The answer to a tool the caller cannot call: unknown, or hidden from it by the access policy (the same words). */
function unknownTool(name: string, outcome: 'unknown_tool' | 'denied'): CallAnswer {
  return { reply: { error: { code: JSONRPC_INVALID_PARAMS, message: `Unknown tool: ${name}` } }, outcome };
}

function argsDigest(input: JsonObject): string {
  return createHash('sha256').update(JSON.stringify(input)).digest('base64url');
}

function declined(entry: CatalogEntry): Reply<McpCallToolResult> {
  return toMcpCallReply({ kind: 'precondition_failed', status: 400, message: 'authorization was not granted, so the tool was not called.' }, entry);
}
