/**
 * One OXP call run on the MCP server that lists the tool: the call's `_meta`
 * (the OXP `call_id`, the declared context, W3C trace context), its client
 * span, and the one repeat on a fresh connection, only when the server
 * provably did not run it (connection refused, lost session). Translation
 * of the outcome is core/mcp-to-oxp.ts's.
 */
import { toOxpReply, type McpCallOutcome, type OxpToolEntry } from '../../core/mcp-to-oxp.js';
import type { JsonObject } from '../../core/json.js';
import type { OxpServerReply } from '../../core/oxp-wire.js';
import { TRACEPARENT_META_KEY, type McpConnection } from '../client/mcp-client-sdk.js';
import type { SourceCall } from '../face/tool-source.js';
import { ATTR, EXECUTE_TOOL } from '../../platform/telemetry/attributes.js';
import { tracer } from '../../platform/telemetry/tracer.js';
import type { UpstreamConnections } from './upstream-connections.js';
import type { Upstream } from './upstream.js';

/** The `_meta` key carrying the OXP context a tool declared (secrets, tokens, user id). */
export const CONTEXT_META_KEY = 'mcp-oxp-bridge/oxp-context';
/** The `_meta` key carrying the OXP `call_id` (and `trace_id`), for the server's logs and idempotency. */
export const CALL_META_KEY = 'mcp-oxp-bridge/oxp-call';

/** The deadlines of a call: a plain one, and one run as a task (creation to result). */
export interface CallDeadlines {
  callTimeoutMs: number;
  taskCallTimeoutMs: number;
}

export async function callUpstream(
  upstream: Upstream,
  entry: OxpToolEntry,
  input: JsonObject,
  call: SourceCall,
  connections: UpstreamConnections,
  deadlines: CallDeadlines,
): Promise<OxpServerReply> {
  const meta: JsonObject = { [CALL_META_KEY]: { call_id: call.callId, ...(call.traceId ? { trace_id: call.traceId } : {}) } };
  if (call.context) meta[CONTEXT_META_KEY] = call.context;
  const attempt = async (): Promise<McpCallOutcome> => {
    const connection = upstream.connection ?? (await connections.reconnectNow(upstream));
    if (!connection)
      return { kind: 'unreachable', detail: upstream.lastError ?? 'not connected', retryable: true, retryAfterMs: connections.retryAfterMs(upstream) };
    const outcome = await tracedCall(connection, upstream, entry, input, call, meta, entry.asTask ? deadlines.taskCallTimeoutMs : deadlines.callTimeoutMs);
    // A call the OXP client abandoned says nothing about the upstream.
    if (outcome.kind === 'unreachable' && !call.signal.aborted) connections.lost(upstream, connection, outcome.detail);
    return outcome;
  };
  let outcome = await attempt();
  if (outcome.kind === 'unreachable' && outcome.retryable && !call.signal.aborted && upstream.connection) outcome = await attempt();
  const { reply, toolGone } = toOxpReply(outcome, entry);
  if (toolGone) void connections.refresh(upstream);
  return reply;
}

/** One `tools/call` on `connection`, under the MCP call's client span; the server continues it from `_meta.traceparent`. */
async function tracedCall(
  connection: McpConnection,
  upstream: Upstream,
  entry: OxpToolEntry,
  input: JsonObject,
  call: SourceCall,
  meta: JsonObject,
  callTimeoutMs: number,
): Promise<McpCallOutcome> {
  const span = tracer().start(`tools/call ${entry.mcpTool.name}`, { kind: 'client', parent: call.span });
  const callMeta = span.traceparent ? { ...meta, [TRACEPARENT_META_KEY]: span.traceparent } : meta;
  // callTool classifies every failure into an outcome (it never throws).
  const outcome = await connection.callTool(entry.mcpTool, input, {
    signal: call.signal,
    timeoutMs: callTimeoutMs,
    meta: callMeta,
    ...(entry.asTask ? { asTask: true, onTask: (taskId: string) => call.onTask?.(taskId) } : {}),
  });
  if (span.recording) {
    const kind = outcome.kind === 'result' ? (outcome.result.isError ? 'tool_error' : 'success') : outcome.kind;
    span.set({
      [ATTR.mcpMethod]: 'tools/call',
      [ATTR.operation]: EXECUTE_TOOL,
      [ATTR.toolName]: entry.mcpTool.name,
      [ATTR.upstream]: upstream.label,
      [ATTR.mcpProtocolVersion]: connection.protocolVersion,
      [ATTR.outcome]: kind,
    });
    if (outcome.kind === 'rpc_error') span.set({ [ATTR.rpcStatus]: String(outcome.code) });
    if (kind !== 'success') span.fail(kind);
  }
  span.end();
  return outcome;
}
