/** The attributes an MCP request's server span ends with (OpenTelemetry semantic conventions for MCP and RPC). */
import type { McpRevision } from '../../core/mcp-versions.js';
import { ATTR, EXECUTE_TOOL } from '../../platform/telemetry/attributes.js';
import type { TraceSpan } from '../../platform/telemetry/tracer.js';
import type { CallReply, Reply } from './call-types.js';

/** Names, revision, outcome and JSON-RPC error code of an MCP request span; never arguments or results. */
export function endRequestSpan(
  span: TraceSpan,
  method: string,
  revision: McpRevision,
  outcome: string,
  reply: CallReply | Reply<unknown> | undefined,
  known?: { tool: string; upstream: string },
): void {
  span.setAttribute(ATTR.mcpMethod, method);
  span.setAttribute(ATTR.mcpProtocolVersion, revision);
  span.setAttribute(ATTR.outcome, outcome);
  if (method === 'tools/call') span.setAttribute(ATTR.operation, EXECUTE_TOOL);
  if (known) {
    span.rename(`${method} ${known.tool}`);
    span.setAttribute(ATTR.toolName, known.tool);
    span.setAttribute(ATTR.upstream, known.upstream);
  }
  if (reply && 'error' in reply) span.setAttribute(ATTR.rpcStatus, String(reply.error.code));
  if (outcome !== 'success' && outcome !== 'input_required') span.fail(outcome);
}
