/**
 * What the OXP face decides about a call besides running it, in the same
 * words as the forward direction: the limit its access rule carries
 * (calls/limits/call-limits.ts) and the audit trail's record of every decision
 * (calls/audit/record.ts). A call over its limit is not run: it is answered as
 * the tool's failure the OXP way (`success: false`, `can_retry`,
 * `retry_after_ms`), so the model and the official clients see when to try
 * again, with no status code the OXP contract does not list.
 */
import type { ServerResponse } from 'node:http';
import type { AccessDecision } from '../../core/access-policy.js';
import { isPlainObject } from '../../core/json.js';
import { OXP_SCHEMA_URN } from '../../core/oxp-wire.js';
import type { Principal } from '../../core/principal.js';
import { FREE_ADMISSION, limitRefusalText, type Admission, type CallLimits } from '../../calls/limits/call-limits.js';
import type { CallDecision } from '../../calls/audit/record.js';
import type { AuditSink } from '../../calls/audit/sink.js';
import { sendJson } from '../../platform/net/json-response.js';
import type { SourceTool } from './tool-source.js';

/** The call as the audit trail and limits see it; `tool` once it resolved (a hidden or unknown id has none). */
export interface OxpCallFacts {
  principal: Principal;
  client: string | undefined;
  tool?: SourceTool;
  /** The id the client asked for, when the tool did not resolve. */
  toolId?: string;
  callId?: string;
  traceId?: string;
  input?: unknown;
}

/** Charges the call to its rule's limit; a refusal is answered here (HTTP 200, the tool's failure) and undefined returned. */
export async function admitCall(
  limits: CallLimits | undefined,
  decision: AccessDecision,
  facts: OxpCallFacts & { tool: SourceTool; callId: string },
  res: ServerResponse,
  audit: AuditSink | undefined,
): Promise<Admission | undefined> {
  if (!limits || !decision.allow || !decision.limits) return FREE_ADMISSION;
  const admitted = await limits.admit(decision, facts.principal, facts.tool.key);
  if (admitted.ok) return admitted;
  const retryAfterMs = admitted.retryAfterSeconds * 1000;
  const error = { message: limitRefusalText(admitted, facts.tool.key), can_retry: true, retry_after_ms: retryAfterMs };
  sendJson(res, 200, { $schema: OXP_SCHEMA_URN, result: { call_id: facts.callId, duration: 0, success: false, error } });
  record(audit, facts, { decision: 'limited', outcome: admitted.reason, ...(decision.rule ? { rule: decision.rule } : {}) });
  return undefined;
}

/** One audit record of an OXP call (keys of the input only: record.ts keeps nothing else). */
export function record(
  audit: AuditSink | undefined,
  facts: OxpCallFacts,
  verdict: { decision: CallDecision['decision']; outcome: string; rule?: CallDecision['rule']; durationMs?: number },
): void {
  if (!audit) return;
  const { principal, tool } = facts;
  const toolId = tool ? `${tool.key}@${tool.version}` : facts.toolId;
  audit.call({
    ...verdict,
    principal,
    ...(facts.client !== undefined ? { client: facts.client } : {}),
    protocol: 'oxp/1.0',
    tool: {
      ...(tool?.mcpName ? { name: tool.mcpName } : {}),
      ...(toolId ? { oxpId: toolId } : {}),
      ...(tool ? { upstream: tool.key.slice(0, tool.key.indexOf('.')) } : {}),
    },
    ...(facts.callId ? { callId: facts.callId } : {}),
    ...(facts.traceId ? { traceId: facts.traceId } : {}),
    ...(facts.input !== undefined ? { arguments: facts.input } : {}),
  });
}

/** What a call body names, read without trusting it: its tool id, call_id and input (for a refusal's audit record). */
export function requestedCall(body: unknown): { toolId?: string; callId?: string; input?: unknown } {
  if (!isPlainObject(body)) return {};
  const request = isPlainObject(body.request) ? body.request : body;
  const input = isPlainObject(request.input) ? request.input : isPlainObject(request.inputs) ? request.inputs : undefined;
  return {
    ...(typeof request.tool_id === 'string' ? { toolId: request.tool_id } : {}),
    ...(typeof request.call_id === 'string' ? { callId: request.call_id } : {}),
    ...(input ? { input } : {}),
  };
}
