/**
 * What an admitted forward tools/call sends upstream, step by step: the client's arguments checked against the
 * schema it was shown, the caller's own credential by token exchange, the OXP context the tool's requirements ask
 * for, and the call_id (new, or an interrupted call's on a 2026-07-28 retry). Each step returns its value or the
 * answer the call ends with; bridge.ts runs them in order.
 */
import { randomUuid } from '../../platform/shared/random-uuid.js';
import { isPlainObject, type JsonObject } from '../../core/json.js';
import { JSONRPC_INVALID_PARAMS } from '../../core/mcp-wire.js';
import { bridgeToolError, toMcpCallReply } from '../../core/oxp-to-mcp.js';
import { mayPollCheckUrl } from '../../core/authorization-links.js';
import { buildCallContext } from '../../core/requirements.js';
import type { OxpCallOutcome } from '../../core/oxp-wire.js';
import type { Logger } from '../../platform/log.js';
import type { InputValidator } from '../../platform/validation/input-validator.js';
import { argsDigest, declined, done, projected } from './call-answers.js';
import type { BridgeOptions, CallAnswer } from './call-types.js';
import { callerTokenOf } from './caller-token.js';
import type { CallPrincipal } from './requirement-values.js';
import type { ResolvedCall } from './tool-call.js';

type Or<T> = T | { answer: CallAnswer };

/** The client's arguments checked against the schema it was shown; the input sent has the fixed arguments added. */
export function checkInput(call: ResolvedCall, validator: InputValidator): Or<{ clientInput: JsonObject; input: JsonObject }> {
  const { tool: entry, args } = call;
  if (args !== undefined && !isPlainObject(args))
    return { answer: done(call, { error: { code: JSONRPC_INVALID_PARAMS, message: 'Tool arguments must be an object' } }, 'invalid_params') };
  const clientInput = (args ?? {}) as JsonObject;
  const parameterErrors = validator.check({ id: entry.callId, inputSchema: entry.tool.inputSchema }, clientInput);
  if (parameterErrors) {
    const reply = toMcpCallReply({ kind: 'invalid_input', message: 'Some input parameters are invalid.', parameterErrors }, entry);
    return { answer: done(call, projected(reply, call), 'invalid_input') };
  }
  return { clientInput, input: entry.fixedArguments ? { ...clientInput, ...entry.fixedArguments } : clientInput };
}

/**
 * The caller's own credentials for this upstream, by token exchange (RFC 8693): the caller's access token is
 * exchanged (cached per user) for one meant for the upstream, sent as its bearer token or as a provider token.
 * The caller's token itself never goes upstream. A caller without an OAuth token, or an exchange that fails, gets a
 * tool error saying to sign in again (or to try later), never a protocol error.
 */
export async function exchangeCredential(call: ResolvedCall, log: Logger): Promise<Or<{ bearerToken?: string; authorization?: Record<string, string> }>> {
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
    log.info({ tool: call.toolName, upstream: upstream.name, outcome, ...(ctx.principal ? { principal: ctx.principal.name } : {}) }, 'token exchange failed');
    return { answer: done(call, projected(bridgeToolError(result.message, { kind: outcome }), call), outcome) };
  }
  return use.as === 'bearer' ? { bearerToken: result.token } : { authorization: { [use.provider.toLowerCase()]: result.token } };
}

const NO_CONTEXT: { context: JsonObject | undefined } = Object.freeze({ context: undefined });

/** The OXP context the tool's requirements ask for (user id, secrets, authorization), or the answer saying what is missing. */
export function callContext(call: ResolvedCall, log: Logger, exchanged?: Record<string, string>): Or<{ context: JsonObject | undefined }> {
  const { tool: entry, target: upstream, toolName: name, ctx } = call;
  // A tool that asks for nothing gets no context: no value is gathered for it (a Map and a closure per call, and
  // the configured authorization sources read, files included, for nothing).
  if (!entry.tool.requirements) return NO_CONTEXT;
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
  log.warn({ tool: name, missing_secrets: decision.missingSecrets, missing_user_id: decision.missingUserId }, 'tool requirements not configured');
  return { answer: done(call, projected(toMcpCallReply(outcome, entry), call), 'requirements_missing') };
}

/**
 * Gives the call its OXP call_id: a new one, or, for a 2026-07-28 retry after authorization, the interrupted
 * call's (its idempotency key), once the user's answer is checked and the check_url polled. Returns an answer
 * when the retry ends here. Synchronous for a call that resumes nothing (every call but such a retry).
 */
export function resumeOrStart(
  call: ResolvedCall,
  clientInput: JsonObject,
  polling: Pick<BridgeOptions, 'authorizationPollMs' | 'authorizationWaitMs'>,
  log: Logger,
): CallAnswer | undefined | Promise<CallAnswer | undefined> {
  const { ctx } = call;
  // A task's call_id is fixed at its creation: a re-drive sends the same one (idempotent upstream).
  call.oxpCallId = ctx.callId ?? randomUuid();
  if (!ctx.resume) return undefined;
  return resume(call, clientInput, ctx.resume, polling, log);
}

/** A 2026-07-28 retry after authorization: the user's answer checked, the check_url polled, the interrupted call's call_id. */
async function resume(
  call: ResolvedCall,
  clientInput: JsonObject,
  { state, accepted }: NonNullable<ResolvedCall['ctx']['resume']>,
  polling: Pick<BridgeOptions, 'authorizationPollMs' | 'authorizationWaitMs'>,
  log: Logger,
): Promise<CallAnswer | undefined> {
  const { ctx } = call;
  if (state.tool !== call.toolName || state.args !== argsDigest(clientInput))
    return done(call, { error: { code: JSONRPC_INVALID_PARAMS, message: 'requestState does not belong to this tool call' } }, 'invalid_params');
  if (!accepted) return declined(call);
  const upstream = call.target;
  // Sealed states carry only vetted check_urls; checked again because the allowed origins may have changed since.
  if (state.checkUrl && mayPollCheckUrl(state.checkUrl, upstream.settings.url, upstream.settings.authorizationCheckOrigins)) {
    const status = await upstream.client.waitForAuthorization(state.checkUrl, polling.authorizationPollMs, polling.authorizationWaitMs, ctx.signal);
    log.info({ tool: call.toolName, call_id: state.callId, status }, 'authorization check');
  }
  call.oxpCallId = state.callId;
  return undefined;
}
