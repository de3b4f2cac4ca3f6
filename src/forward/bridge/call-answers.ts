/**
 * The answers a forward tools/call ends with, in MCP terms, built from values only: the upstream's outcome (links
 * vetted, URL authorization asked for where the revision can), a gate's refusal, an unknown tool, a declined
 * authorization. bridge.ts decides which; these say it.
 */
import { createHash } from 'node:crypto';
import type { JsonObject } from '../../core/json.js';
import { profileFor } from '../../core/mcp-versions.js';
import { JSONRPC_INVALID_PARAMS, type McpCallToolResult } from '../../core/mcp-wire.js';
import { bridgeToolError, toMcpCallReply, unsafeLinkReply, urlElicitationError, urlElicitationFor } from '../../core/oxp-to-mcp.js';
import { vetChallenges } from '../../core/authorization-links.js';
import { projectCallToolResult } from '../../core/project.js';
import type { OxpCallOutcome } from '../../core/oxp-wire.js';
import { limitRefusalText, type CallOutcome, type GateRefusal } from '../../calls/gate.js';
import type { CallAnswer, CallContext, CallReply, Reply, ResumeState } from './call-types.js';
import type { ResolvedCall } from './tool-call.js';

/** A reply that carries the upstream and, once given, the call_id (the console shows both). */
export function done(call: ResolvedCall, reply: CallReply, outcome: CallOutcome): CallAnswer {
  const answer: CallAnswer = { reply, outcome, upstream: call.target.name, callId: call.oxpCallId, oxpId: call.tool.callId };
  if (call.rule) answer.rule = call.rule;
  if (call.loggedMs !== undefined) answer.durationMs = call.loggedMs;
  return answer;
}

/**
 * The answer to a tool the caller cannot call: unknown, or hidden from it by the access policy (the same words), with
 * the closest name it may call when one is close (`guess`: from the caller's own list only, so a hidden tool is never
 * named and its answer stays an unknown name's).
 */
export function unknownTool(name: string, outcome: 'unknown_tool' | 'denied', guess?: string): CallAnswer {
  const message = `Unknown tool: ${name}${guess !== undefined ? ` (did you mean ${guess}?)` : ''}`;
  return { reply: { error: { code: JSONRPC_INVALID_PARAMS, message } }, outcome };
}

/** A tool result as the call's revision may receive it (an error passes as it is). */
export function projected(reply: Reply<McpCallToolResult>, call: ResolvedCall): Reply<McpCallToolResult> {
  return 'error' in reply ? reply : { result: projectCallToolResult(reply.result, profileFor(call.revision), call.tool.tool.outputSchema) };
}

/**
 * A call the gate refused, in MCP terms. Denied: exactly the unknown tool's answer, before anything (input checks
 * included) could tell the tool exists; the audit trail still names the hidden tool and the rule. Limited: a tool
 * error saying when to try again.
 */
export function refusedAnswer(call: ResolvedCall, refusal: GateRefusal): CallAnswer {
  if (refusal.reason === 'denied')
    return { ...unknownTool(call.toolName, 'denied'), oxpId: call.tool.callId, upstream: call.target.name, ...(call.rule ? { rule: call.rule } : {}) };
  const meta = { kind: refusal.reason, retry_after_ms: refusal.retryAfterSeconds * 1000 };
  return done(call, projected(bridgeToolError(limitRefusalText(refusal, call.toolKey), meta), call), refusal.reason);
}

/** The digest a 2026-07-28 requestState keeps of the arguments, so a retry is known to be the same call. */
export function argsDigest(input: JsonObject): string {
  return createHash('sha256').update(JSON.stringify(input)).digest('base64url');
}

/** The answer to a retry whose user did not grant the authorization asked for. */
export function declined(call: ResolvedCall): CallAnswer {
  const outcome: OxpCallOutcome = { kind: 'precondition_failed', status: 400, message: 'authorization was not granted, so the tool was not called.' };
  return done(call, projected(toMcpCallReply(outcome, call.tool), call), 'authorization_declined');
}

/** The upstream's outcome as the client's reply: links vetted, URL authorization asked for where the revision can. */
export function upstreamAnswer(call: ResolvedCall, outcome: OxpCallOutcome, clientInput: JsonObject, ctx: CallContext): CallAnswer {
  const { tool: entry, target: upstream, revision } = call;
  const vetted = vetChallenges(outcome, { upstreamUrl: upstream.settings.url, allowedOrigins: upstream.settings.authorizationCheckOrigins });
  if (!vetted.ok) {
    call.logger().warn({ outcome: 'unsafe_authorization_link' }, vetted.message);
    return done(call, projected(unsafeLinkReply(vetted.message), call), 'unsafe_authorization_link');
  }
  if (vetted.ignoredCheckOrigins.length) {
    const why = "authorization check_url on an origin other than the upstream's ignored (allow it with authorizationCheckOrigins)";
    call.logger().warn({ origins: vetted.ignoredCheckOrigins }, why);
  }
  const elicitation = ctx.urlElicitation ? urlElicitationFor(vetted.outcome, entry) : undefined;
  if (elicitation) {
    const profile = profileFor(revision);
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
  return done(call, projected(toMcpCallReply(vetted.outcome, entry), call), vetted.outcome.kind);
}
