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
import { logIds, tracer, type TraceSpan } from '../../platform/telemetry/tracer.js';
import { logOutcome } from './call-log.js';
import { endRequestSpan } from './request-span.js';
import type { BridgeOptions, CallAnswer, CallContext, CallObserver, CallReply, Reply, ResumeState } from './call-types.js';
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
import { AccessPolicy, type AccessDecision, type RuleRef } from '../../core/access-policy.js';
import { CallLimits, FREE_ADMISSION, limitRefusalText, type Admission } from '../../calls/limits/call-limits.js';
import type { AuditSink } from '../../calls/audit/sink.js';
import type { CallDecision } from '../../calls/audit/record.js';
import { ToolAccess } from './tool-access.js';
import { callerTokenOf } from '../../calls/limits/caller-token.js';
import type { OxpCallRequest } from '../client/client.js';
import type { AnonymousSettings } from '../../core/principal.js';
import type { Upstream } from './upstream.js';

export type { BridgeOptions, CallAnswer, CallContext, CallObserver, CallReply, InputRequiredReply, Reply, ResumeState } from './call-types.js';

/** No catalog was ever loaded: the detail is in the log and /readyz, not in the client's error. */
const CATALOG_UNAVAILABLE: McpErrorReply = { code: JSONRPC_INTERNAL_ERROR, message: 'The tool server is not reachable yet; no tools are available.' };

/** The catalog, or the error a client gets when none was ever loaded: refused credentials said as such. */
function catalogOrError(snapshot: Promise<CatalogSnapshot>): Promise<CatalogSnapshot | McpErrorReply> {
  return snapshot.catch((error: unknown) => {
    if (!(error instanceof NoCatalogError) || error.refusedStatus === undefined) return CATALOG_UNAVAILABLE;
    return { code: JSONRPC_INTERNAL_ERROR, message: `${credentialsRefusedText(error.refusedStatus)} No tools are available until then.` };
  });
}

export class Bridge {
  private readonly validator: InputValidator;

  /** Who may see and call which tool (the access policy; a reload replaces it with `access.update`). */
  readonly access: ToolAccess;

  constructor(
    readonly upstreams: UpstreamSet,
    private readonly log: Logger,
    private options: BridgeOptions,
    private readonly metrics?: Metrics,
    parts: { access?: ToolAccess; limits?: CallLimits; audit?: AuditSink } = {},
  ) {
    this.validator = new InputValidator(options.maxValidators, log);
    this.access = parts.access ?? new ToolAccess(new AccessPolicy());
    this.limits = parts.limits ?? new CallLimits(async () => new (await import('../../calls/limits/memory-limit-store.js')).MemoryLimitStore());
    // Undefined when off: a call then builds no record at all.
    this.audit = parts.audit?.kind === 'off' ? undefined : parts.audit;
  }

  private readonly audit: AuditSink | undefined;

  /** Counts the calls access rules limit (store: this process, or Redis). */
  readonly limits: CallLimits;

  /** Set by the console when it is on; undefined costs nothing per call. */
  callObserver: CallObserver | undefined;

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
    const snapshot = await catalogOrError(this.upstreams.snapshot());
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
    this.calls.enter();
    let outcome = 'cancelled';
    // The MCP request's server span; like the metric, named after the tool only once the tool is known (client names are unbounded).
    const span = tracer().start('tools/call', { kind: 'server', parent: ctx.traceparent });
    const observer = this.callObserver;
    // Timed only for those who read the duration (the console, the audit trail).
    const started = observer || this.audit ? performance.now() : 0;
    let answer: CallAnswer | undefined;
    try {
      answer = await this.call(version, name, args, ctx, span);
      outcome = answer.outcome;
      return answer.reply;
    } finally {
      const upstream = answer?.upstream;
      if (span.recording) endRequestSpan(span, 'tools/call', version, outcome, answer?.reply, upstream !== undefined ? { tool: name, upstream } : undefined);
      span.end();
      this.metrics?.countCall(version, upstream !== undefined ? name : '(unknown)', upstream ?? '', outcome, ctx.principal);
      // Nobody authenticated: the console names the anonymous principal the policy saw (no allocation, it is kept).
      const durationMs = started ? performance.now() - started : 0;
      observer?.callFinished(name, version, outcome, answer, durationMs, args, ctx.traceparent, this.access.principalOf(ctx.principal));
      if (this.audit) this.audit.call(auditDecision({ version, name, args, ctx, outcome, answer, durationMs, span }, this.access));
      this.calls.leave();
    }
  }

  /** The call itself: the reply plus an outcome label for metrics. */
  private async call(version: McpVersion, name: string, args: unknown, ctx: CallContext, span: TraceSpan): Promise<CallAnswer> {
    const target = await this.resolve(name, ctx.principal);
    if ('answer' in target) return target.answer;
    const { entry, upstream, decision } = target;
    const plan: CallPlan = { version, name, entry, upstream, callId: undefined, ...(decision.rule ? { rule: decision.rule } : {}) };
    const admission = decision.allow && decision.limits ? await this.admit(plan, decision, ctx.principal) : FREE_ADMISSION;
    if ('answer' in admission) return admission.answer;
    try {
      return await this.callAdmitted(plan, args, ctx, span);
    } finally {
      admission.release();
    }
  }

  /** A call its rule's limits let through: input, credentials, requirements, the upstream call and its answer. */
  private async callAdmitted(plan: CallPlan, args: unknown, ctx: CallContext, span: TraceSpan): Promise<CallAnswer> {
    const { upstream } = plan;
    const checked = this.checkInput(plan, args);
    if ('answer' in checked) return checked.answer;
    const credential = upstream.exchanger ? await this.exchangeCredential(plan, ctx) : undefined;
    if (credential && 'answer' in credential) return credential.answer;
    const context = this.callContext(plan, ctx, credential?.authorization);
    if ('answer' in context) return context.answer;
    const resumed = await this.resumeOrStart(plan, checked.clientInput, ctx);
    if (resumed) return resumed;
    const run = await this.runUpstream(plan, { input: checked.input, context: context.context, bearerToken: credential?.bearerToken, ctx, span });
    return this.answer(plan, run, checked.clientInput, ctx);
  }

  /** The catalog entry and upstream a name calls, or the answer an unknown tool gets (also for a tool the policy hides). */
  private async resolve(
    name: string,
    principal: Principal | undefined,
  ): Promise<{ entry: CatalogEntry; upstream: Upstream; decision: AccessDecision } | { answer: CallAnswer }> {
    const snapshot = await catalogOrError(this.upstreams.snapshot());
    if (!(snapshot instanceof CatalogSnapshot))
      return { answer: { reply: { error: snapshot }, outcome: snapshot === CATALOG_UNAVAILABLE ? 'catalog_unavailable' : 'upstream_auth_failed' } };
    const entry = snapshot.entry(name);
    const upstream = this.upstreams.get(entry?.upstream);
    if (!entry || !upstream) return { answer: unknownTool(name, 'unknown_tool') };
    // Denied: exactly the unknown tool's answer, before anything (input checks included) could tell the tool exists.
    const decision = this.access.decide(entry, principal);
    // The audit trail names the hidden tool and the rule (the caller's reply says neither).
    if (!decision.allow)
      return { answer: { ...unknownTool(name, 'denied'), oxpId: entry.callId, upstream: upstream.name, ...(decision.rule ? { rule: decision.rule } : {}) } };
    return { entry, upstream, decision };
  }

  /** Charges the call to its rule's limit (this process's counters, or Redis shared by replicas); a refusal is a tool error saying when to try again. */
  private async admit(plan: CallPlan, decision: AccessDecision, principal: Principal | undefined): Promise<Admission | { answer: CallAnswer }> {
    const admitted = await this.limits.admit(decision, this.access.principalOf(principal), plan.name);
    if (admitted.ok) return admitted;
    const meta = { kind: admitted.reason, retry_after_ms: admitted.retryAfterSeconds * 1000 };
    return { answer: done(plan, this.project(bridgeToolError(limitRefusalText(admitted, plan.name), meta), plan), admitted.reason) };
  }

  /** The client's arguments checked against the schema it was shown; the input sent has the fixed arguments added. */
  private checkInput(plan: CallPlan, args: unknown): { clientInput: JsonObject; input: JsonObject } | { answer: CallAnswer } {
    const { entry } = plan;
    if (args !== undefined && !isPlainObject(args))
      return { answer: done(plan, { error: { code: JSONRPC_INVALID_PARAMS, message: 'Tool arguments must be an object' } }, 'invalid_params') };
    const clientInput = (args ?? {}) as JsonObject;
    const parameterErrors = this.validator.check({ id: entry.callId, inputSchema: entry.tool.inputSchema }, clientInput);
    if (parameterErrors) {
      const reply = toMcpCallReply({ kind: 'invalid_input', message: 'Some input parameters are invalid.', parameterErrors }, entry);
      return { answer: done(plan, this.project(reply, plan), 'invalid_input') };
    }
    return { clientInput, input: entry.fixedArguments ? { ...clientInput, ...entry.fixedArguments } : clientInput };
  }

  /**
   * The caller's own credentials for this upstream, by token exchange (RFC 8693): the caller's access token is
   * exchanged (cached per user) for one meant for the upstream, sent as its bearer token or as a provider token.
   * The caller's token itself never goes upstream. A caller without an OAuth token, or an exchange that fails, gets a
   * tool error saying to sign in again (or to try later), never a protocol error.
   */
  private async exchangeCredential(
    plan: CallPlan,
    ctx: CallContext,
  ): Promise<{ bearerToken?: string; authorization?: Record<string, string> } | { answer: CallAnswer }> {
    const exchanger = plan.upstream.exchanger!;
    const use = plan.upstream.settings.tokenExchange!.use;
    // A provider token is exchanged only for tools that declare that provider.
    if (use.as === 'authorization' && !plan.entry.tool.requirements?.authorization?.some((a) => a.id.toLowerCase() === use.provider.toLowerCase())) return {};
    const subjectToken = callerTokenOf(ctx.principal);
    const result = subjectToken
      ? await exchanger.exchange(subjectToken, ctx.principal!.subject, plan.upstream.name, ctx.signal)
      : ({
          ok: false,
          kind: 'refused',
          message: `The tool ${plan.name} acts with your own account at its tool server: sign in with OAuth to use it.`,
        } as const);
    if (!result.ok) {
      const outcome = result.kind === 'refused' ? 'token_exchange_refused' : 'token_exchange_unavailable';
      this.log.info(
        { tool: plan.name, upstream: plan.upstream.name, outcome, ...(ctx.principal ? { principal: ctx.principal.name } : {}) },
        'token exchange failed',
      );
      return { answer: done(plan, this.project(bridgeToolError(result.message, { kind: outcome }), plan), outcome) };
    }
    return use.as === 'bearer' ? { bearerToken: result.token } : { authorization: { [use.provider.toLowerCase()]: result.token } };
  }

  /** The OXP context the tool's requirements ask for (user id, secrets, authorization), or the answer saying what is missing. */
  private callContext(plan: CallPlan, ctx: CallContext, exchanged?: Record<string, string>): { context: JsonObject | undefined } | { answer: CallAnswer } {
    const { entry, upstream, name } = plan;
    const principal: CallPrincipal = {};
    // An authenticated principal's subject is the OXP user_id; nobody authenticated leaves requirements.userId.
    if (ctx.principal && ctx.principal.kind !== 'anonymous') principal.userId = ctx.principal.subject;
    const tokens = ctx.requestHeaders ? upstream.values.tokensFromHeaders(ctx.requestHeaders) : undefined;
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
    return { answer: done(plan, this.project(toMcpCallReply(outcome, entry), plan), 'requirements_missing') };
  }

  /**
   * Gives the call its OXP call_id: a new one, or, for a 2026-07-28 retry after authorization, the interrupted
   * call's (its idempotency key), once the user's answer is checked and the check_url polled. Returns an answer
   * when the retry ends here.
   */
  private async resumeOrStart(plan: CallPlan, clientInput: JsonObject, ctx: CallContext): Promise<CallAnswer | undefined> {
    plan.callId = randomUUID();
    if (!ctx.resume) return undefined;
    const { state, accepted } = ctx.resume;
    if (state.tool !== plan.name || state.args !== argsDigest(clientInput))
      return done(plan, { error: { code: JSONRPC_INVALID_PARAMS, message: 'requestState does not belong to this tool call' } }, 'invalid_params');
    if (!accepted) return done(plan, this.project(declined(plan.entry), plan), 'authorization_declined');
    const { upstream } = plan;
    // Sealed states carry only vetted check_urls; checked again because the allowed origins may have changed since.
    if (state.checkUrl && mayPollCheckUrl(state.checkUrl, upstream.settings.url, upstream.settings.authorizationCheckOrigins)) {
      const { authorizationPollMs, authorizationWaitMs } = this.options;
      const status = await upstream.client.waitForAuthorization(state.checkUrl, authorizationPollMs, authorizationWaitMs, ctx.signal);
      this.log.info({ tool: plan.name, call_id: state.callId, status }, 'authorization check');
    }
    plan.callId = state.callId;
    return undefined;
  }

  /** The OXP call with its retries, progress ticks and the per-call log line. */
  private async runUpstream(
    plan: CallPlan,
    call: { input: JsonObject; context: JsonObject | undefined; bearerToken: string | undefined; ctx: CallContext; span: TraceSpan },
  ) {
    const { entry, upstream, name, callId } = plan;
    const { ctx, span } = call;
    // OXP trace_id: the span's trace (a new one when the client sent none), else the client's as received.
    const traceId = span.traceId ?? traceIdFromTraceparent(ctx.traceparent);
    const callFields = () => ({
      call_id: callId,
      ...logIds(span, traceId),
      tool: name,
      upstream: upstream.name,
      oxp_tool: entry.callId,
      protocol_version: plan.version,
      ...(ctx.principal ? { principal: ctx.principal.name } : {}),
    });
    // The per-call child logger is made on first use: a pino child serialises its bindings at once,
    // a cost every call would pay even when the level drops every line.
    let callLog: Logger | undefined;
    const log = (plan.log = () => (callLog ??= this.log.child(callFields())));
    const started = performance.now();
    const ticker = ctx.progress ? this.startProgress(ctx.progress, name, started, log) : undefined;
    const request: OxpCallRequest = { toolId: entry.callId, callId: callId!, input: call.input };
    if (traceId) request.traceId = traceId;
    if (call.context) request.context = call.context;
    if (call.bearerToken !== undefined) request.bearerToken = call.bearerToken;
    try {
      const run = await upstream.runner.run(request, log, ctx.signal, span);
      logOutcome(this.log, log, callFields, run.outcome, performance.now() - started, run.attempts);
      return run;
    } finally {
      if (ticker) clearInterval(ticker);
    }
  }

  /** The upstream's outcome as the client's reply: links vetted, URL authorization asked for where the revision can. */
  private answer(plan: CallPlan, run: { outcome: OxpCallOutcome }, clientInput: JsonObject, ctx: CallContext): CallAnswer {
    const { entry, upstream, version } = plan;
    const log = plan.log!;
    const vetted = vetChallenges(run.outcome, { upstreamUrl: upstream.settings.url, allowedOrigins: upstream.settings.authorizationCheckOrigins });
    if (!vetted.ok) {
      log().warn({ outcome: 'unsafe_authorization_link' }, vetted.message);
      return done(plan, this.project(unsafeLinkReply(vetted.message), plan), 'unsafe_authorization_link');
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
      const callId = plan.callId!;
      if (profile.has.inputRequired) {
        const resume: ResumeState = { callId, tool: plan.name, args: argsDigest(clientInput), key: elicitation.key };
        if (elicitation.checkUrl) resume.checkUrl = elicitation.checkUrl;
        return done(plan, { inputRequired: { key: elicitation.key, message: elicitation.message, url: elicitation.url, resume } }, 'input_required');
      }
      if (profile.has.urlElicitationError)
        return done(plan, { error: urlElicitationError(elicitation, `${elicitation.key}-${callId}`) }, 'url_elicitation_required');
    }
    return done(plan, this.project(toMcpCallReply(outcome, entry), plan), outcome.kind);
  }

  private project(reply: Reply<McpCallToolResult>, plan: CallPlan): Reply<McpCallToolResult> {
    return 'error' in reply ? reply : { result: projectCallToolResult(reply.result, profileFor(plan.version), plan.entry.tool.outputSchema) };
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

/** One tools/call on its way: what is known of it so far (the call_id once given). */
interface CallPlan {
  readonly version: McpVersion;
  readonly name: string;
  readonly entry: CatalogEntry;
  readonly upstream: Upstream;
  callId: string | undefined;
  /** The access rule that let it through, when one did (the default lets the rest through). */
  readonly rule?: RuleRef;
  /** The call's logger, made on first use (set once the OXP call starts). */
  log?: () => Logger;
}

/** A reply that carries the upstream and, once given, the call_id (the console shows both). */
function done(plan: CallPlan, reply: CallReply, outcome: string): CallAnswer {
  const answer: CallAnswer = { reply, outcome, upstream: plan.upstream.name, callId: plan.callId, oxpId: plan.entry.callId };
  if (plan.rule) answer.rule = plan.rule;
  return answer;
}

/** The answer to a tool the caller cannot call: unknown, or hidden from it by the access policy (the same words). */
function unknownTool(name: string, outcome: 'unknown_tool' | 'denied'): CallAnswer {
  return { reply: { error: { code: JSONRPC_INVALID_PARAMS, message: `Unknown tool: ${name}` } }, outcome };
}

/** Outcomes that mean a rule's limit refused the call (the audit trail's `limited`). */
const LIMITED = new Set(['rate_limited', 'too_many_in_flight', 'store_unavailable']);

/** One finished tools/call as the audit trail records it (keys of the arguments only: record.ts keeps nothing else). */
function auditDecision(
  call: {
    version: McpVersion;
    name: string;
    args: unknown;
    ctx: CallContext;
    outcome: string;
    answer: CallAnswer | undefined;
    durationMs: number;
    span: TraceSpan;
  },
  access: ToolAccess,
): CallDecision {
  const { answer, ctx } = call;
  const principal = access.principalOf(ctx.principal);
  const traceId = call.span.traceId ?? traceIdFromTraceparent(ctx.traceparent);
  return {
    decision: call.outcome === 'denied' ? 'denied' : LIMITED.has(call.outcome) ? 'limited' : 'allowed',
    outcome: call.outcome,
    ...(answer?.rule ? { rule: answer.rule } : {}),
    principal,
    ...(ctx.client !== undefined ? { client: ctx.client } : {}),
    protocol: `mcp/${call.version}`,
    tool: { name: call.name, ...(answer?.oxpId ? { oxpId: answer.oxpId } : {}), ...(answer?.upstream ? { upstream: answer.upstream } : {}) },
    durationMs: call.durationMs,
    ...(answer?.callId ? { callId: answer.callId } : {}),
    ...(traceId ? { traceId } : {}),
    arguments: call.args,
  };
}

function argsDigest(input: JsonObject): string {
  return createHash('sha256').update(JSON.stringify(input)).digest('base64url');
}

function declined(entry: CatalogEntry): Reply<McpCallToolResult> {
  return toMcpCallReply({ kind: 'precondition_failed', status: 400, message: 'authorization was not granted, so the tool was not called.' }, entry);
}
