/**
 * The MCP → OXP direction's orchestration: one method per MCP operation.
 * Takes the peer's resolved revision as a value and returns ready-to-send,
 * projected replies; fronts (HTTP, stdio, any SDK) only carry bytes.
 */
import { createHash, randomUUID } from 'node:crypto';
import { decodeCursor, pageAfter } from '../core/cursor.js';
import { isPlainObject, type JsonObject } from '../core/json.js';
import { profileFor, type McpVersion } from '../core/mcp-versions.js';
import { JSONRPC_INTERNAL_ERROR, JSONRPC_INVALID_PARAMS, type McpCallToolResult, type McpErrorReply, type McpListToolsResult } from '../core/mcp-wire.js';
import { credentialsRefusedText, toMcpCallReply, unsafeLinkReply, urlElicitationError, urlElicitationFor } from '../core/oxp-to-mcp.js';
import { CatalogSnapshot, NoCatalogError } from './catalog-service.js';
import { mayPollCheckUrl, vetChallenges } from '../core/authorization-links.js';
import { projectCallToolResult, projectListToolsResult } from '../core/project.js';
import { traceIdFromTraceparent } from '../core/trace.js';
import { logIds, tracer, type TraceSpan } from '../telemetry/tracer.js';
import { logOutcome } from './call-log.js';
import { endRequestSpan } from './request-span.js';
import type { BridgeOptions, CallAnswer, CallContext, CallObserver, CallReply, Reply, ResumeState } from './call-types.js';
import type { OxpCallOutcome } from '../core/oxp-wire.js';
import type { UpstreamSet } from './upstream-set.js';
import type { Metrics } from '../metrics.js';
import type { Logger } from '../log.js';
import { InputValidator } from '../validation/input-validator.js';
import { InFlight } from '../shared/in-flight.js';
import type { CallPrincipal } from './requirement-values.js';
import { buildCallContext } from '../core/requirements.js';
import type { CatalogEntry } from '../core/catalog.js';

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

  constructor(
    readonly upstreams: UpstreamSet,
    private readonly log: Logger,
    private options: BridgeOptions,
    private readonly metrics?: Metrics,
  ) {
    this.validator = new InputValidator(options.maxValidators, log);
  }

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

  /** `traceparent`: the request's trace context (the front picks header before `_meta`, see core/trace.ts). */
  async listTools(version: McpVersion, cursor: string | undefined, traceparent?: string): Promise<Reply<McpListToolsResult>> {
    // The MCP request's server span (MCP semantic conventions), the root of the bridge's spans for it.
    const span = tracer().start('tools/list', { kind: 'server', parent: traceparent });
    let reply: Reply<McpListToolsResult> | undefined;
    try {
      reply = await this.list(version, cursor);
      this.metrics?.countList(version, 'error' in reply ? 'error' : 'success');
      return reply;
    } finally {
      if (span.recording) endRequestSpan(span, 'tools/list', version, reply && 'error' in reply ? 'error' : reply ? 'success' : 'failed', reply);
      span.end();
    }
  }

  private async list(version: McpVersion, cursor: string | undefined): Promise<Reply<McpListToolsResult>> {
    const snapshot = await catalogOrError(this.upstreams.snapshot());
    if (!(snapshot instanceof CatalogSnapshot)) return { error: snapshot };
    let after: string | undefined;
    if (cursor !== undefined) {
      after = decodeCursor(cursor);
      if (after === undefined) return { error: { code: JSONRPC_INVALID_PARAMS, message: 'Invalid cursor' } };
    }
    const tools = snapshot.toolsFor(version);
    const { page, next } = pageAfter(tools, (t) => t.name, after, this.options.pageSize);
    const result: McpListToolsResult = { tools: page, ttlMs: this.options.listTtlMs, cacheScope: 'public' };
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
    const started = observer ? performance.now() : 0;
    let answer: CallAnswer | undefined;
    try {
      answer = await this.call(version, name, args, ctx, span);
      outcome = answer.outcome;
      return answer.reply;
    } finally {
      const upstream = answer?.upstream;
      if (span.recording) endRequestSpan(span, 'tools/call', version, outcome, answer?.reply, upstream !== undefined ? { tool: name, upstream } : undefined);
      span.end();
      this.metrics?.countCall(version, upstream !== undefined ? name : '(unknown)', upstream ?? '', outcome);
      observer?.callFinished(name, version, outcome, answer, performance.now() - started, args, ctx.traceparent);
      this.calls.leave();
    }
  }

  /** The call itself: the reply plus an outcome label for metrics. */
  private async call(version: McpVersion, name: string, args: unknown, ctx: CallContext, span: TraceSpan): Promise<CallAnswer> {
    const snapshot = await catalogOrError(this.upstreams.snapshot());
    if (!(snapshot instanceof CatalogSnapshot))
      return { reply: { error: snapshot }, outcome: snapshot === CATALOG_UNAVAILABLE ? 'catalog_unavailable' : 'upstream_auth_failed' };
    const entry = snapshot.entry(name);
    const upstream = this.upstreams.get(entry?.upstream);
    if (!entry || !upstream) return { reply: { error: { code: JSONRPC_INVALID_PARAMS, message: `Unknown tool: ${name}` } }, outcome: 'unknown_tool' };
    // Set once the call has an OXP call_id; the replies made from then on carry it (the console shows it).
    let callId: string | undefined;
    const done = (reply: CallReply, outcome: string) => ({ reply, outcome, upstream: upstream.name, callId });
    if (args !== undefined && !isPlainObject(args))
      return done({ error: { code: JSONRPC_INVALID_PARAMS, message: 'Tool arguments must be an object' } }, 'invalid_params');

    const clientInput = (args ?? {}) as JsonObject;
    // Clients are validated against the schema they were shown; fixed arguments are added afterwards.
    const parameterErrors = this.validator.check({ id: entry.callId, inputSchema: entry.tool.inputSchema }, clientInput);
    const input = entry.fixedArguments ? { ...clientInput, ...entry.fixedArguments } : clientInput;
    if (parameterErrors)
      return done(
        this.project(toMcpCallReply({ kind: 'invalid_input', message: 'Some input parameters are invalid.', parameterErrors }, entry), version, entry),
        'invalid_input',
      );

    const principal: CallPrincipal = {};
    if (ctx.userId) principal.userId = ctx.userId;
    const tokens = ctx.requestHeaders ? upstream.values.tokensFromHeaders(ctx.requestHeaders) : undefined;
    if (tokens) principal.authorization = tokens;
    const decision = buildCallContext(entry.tool, upstream.values.forCall(principal));
    if (!decision.ok) {
      const outcome: OxpCallOutcome = {
        kind: 'requirements_missing',
        message: `The tool ${name} cannot run until the bridge is configured for it.${upstream.settings.requirements.granted && decision.missingSecrets.length ? ` Its upstream (${upstream.name}) receives a global secret only when its upstreams[] entry grants it (grants.secrets) or sets it (secrets).` : ''}`,
        authorization: [],
        userId: decision.missingUserId,
        secrets: decision.missingSecrets,
      };
      this.log.warn({ tool: name, missing_secrets: decision.missingSecrets, missing_user_id: decision.missingUserId }, 'tool requirements not configured');
      return done(this.project(toMcpCallReply(outcome, entry), version, entry), 'requirements_missing');
    }

    callId = randomUUID();
    if (ctx.resume) {
      const { state, accepted } = ctx.resume;
      if (state.tool !== name || state.args !== argsDigest(clientInput))
        return done({ error: { code: JSONRPC_INVALID_PARAMS, message: 'requestState does not belong to this tool call' } }, 'invalid_params');
      if (!accepted) return done(this.project(declined(entry), version, entry), 'authorization_declined');
      // Sealed states carry only vetted check_urls; checked again because the allowed origins may have changed since.
      if (state.checkUrl && mayPollCheckUrl(state.checkUrl, upstream.settings.url, upstream.settings.authorizationCheckOrigins)) {
        const status = await upstream.client.waitForAuthorization(
          state.checkUrl,
          this.options.authorizationPollMs,
          this.options.authorizationWaitMs,
          ctx.signal,
        );
        this.log.info({ tool: name, call_id: state.callId, status }, 'authorization check');
      }
      callId = state.callId; // the resumed call keeps its idempotency key
    }
    // OXP trace_id: the span's trace (a new one when the client sent none), else the client's as received.
    const traceId = span.traceId ?? traceIdFromTraceparent(ctx.traceparent);
    // The per-call child logger is made on first use: a pino child serialises its bindings at once,
    // a cost every call would pay even when the level drops every line.
    let callLog: Logger | undefined;
    const callFields = () => ({
      call_id: callId,
      ...logIds(span, traceId),
      tool: name,
      upstream: upstream.name,
      oxp_tool: entry.callId,
      protocol_version: version,
    });
    const log = () => (callLog ??= this.log.child(callFields()));
    const started = performance.now();
    const ticker = ctx.progress ? this.startProgress(ctx.progress, name, started, log) : undefined;
    let run;
    try {
      run = await upstream.runner.run(
        { toolId: entry.callId, callId, input, ...(traceId ? { traceId } : {}), ...(decision.context ? { context: decision.context } : {}) },
        log,
        ctx.signal,
        span,
      );
    } finally {
      if (ticker) clearInterval(ticker);
    }
    const { attempts } = run;
    logOutcome(this.log, log, callFields, run.outcome, performance.now() - started, attempts);
    const vetted = vetChallenges(run.outcome, { upstreamUrl: upstream.settings.url, allowedOrigins: upstream.settings.authorizationCheckOrigins });
    if (!vetted.ok) {
      log().warn({ outcome: 'unsafe_authorization_link' }, vetted.message);
      return done(this.project(unsafeLinkReply(vetted.message), version, entry), 'unsafe_authorization_link');
    }
    if (vetted.ignoredCheckOrigins.length) {
      log().warn(
        { origins: vetted.ignoredCheckOrigins },
        "authorization check_url on an origin other than the upstream's ignored (allow it with authorizationCheckOrigins)",
      );
    }
    const outcome = vetted.outcome;
    if (outcome.kind === 'unknown_tool') {
      // The server no longer knows a tool we listed: our catalog is stale.
      upstream.catalog.refresh().catch(() => undefined);
    }
    const elicitation = ctx.urlElicitation ? urlElicitationFor(outcome, entry) : undefined;
    if (elicitation) {
      const profile = profileFor(version);
      if (profile.has.inputRequired) {
        const resume: ResumeState = { callId, tool: name, args: argsDigest(clientInput), key: elicitation.key };
        if (elicitation.checkUrl) resume.checkUrl = elicitation.checkUrl;
        return done({ inputRequired: { key: elicitation.key, message: elicitation.message, url: elicitation.url, resume } }, 'input_required');
      }
      if (profile.has.urlElicitationError) return done({ error: urlElicitationError(elicitation, `${elicitation.key}-${callId}`) }, 'url_elicitation_required');
    }
    return done(this.project(toMcpCallReply(outcome, entry), version, entry), outcome.kind);
  }

  private project(reply: Reply<McpCallToolResult>, version: McpVersion, entry: CatalogEntry): Reply<McpCallToolResult> {
    return 'error' in reply ? reply : { result: projectCallToolResult(reply.result, profileFor(version), entry.tool.outputSchema) };
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

function argsDigest(input: JsonObject): string {
  return createHash('sha256').update(JSON.stringify(input)).digest('base64url');
}

function declined(entry: CatalogEntry): Reply<McpCallToolResult> {
  return toMcpCallReply({ kind: 'precondition_failed', status: 400, message: 'authorization was not granted, so the tool was not called.' }, entry);
}
