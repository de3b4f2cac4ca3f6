/**
 * One OXP `POST /tools/call` as the call gate sees it (calls/gate.ts): made by the face from the request's body,
 * filled by the gate's steps (call-steps.ts) — the tool resolved, the input checked, the reply — and read by the face
 * to render the answer. What only a record reads (the tool's MCP name, its versioned id, its toolkit) is derived
 * when read, so a call nobody records pays nothing for it.
 */
import type { ServerResponse } from 'node:http';
import { traceFields, type Admission, type CallLogLevel, type CallOutcome, type GateCall, type GateRefusal, type UnansweredOutcome } from '../../calls/gate.js';
import type { RuleRef } from '../../core/access-policy.js';
import type { JsonObject } from '../../core/json.js';
import type { OxpServerReply } from '../../core/oxp-wire.js';
import type { Principal } from '../../core/principal.js';
import type { LineFields } from '../../platform/log-line.js';
import type { TraceSpan } from '../../platform/telemetry/tracer.js';
import { requestedCall, type CallRejection } from './parse-call.js';
import type { SourceTool } from './tool-source.js';

export class OxpCall<T extends SourceTool = SourceTool> implements GateCall<T, OxpServerReply> {
  readonly revision = 'oxp-1.0';
  readonly protocol = 'oxp/1.0';
  principal: Principal | undefined = undefined;
  tool: T | undefined = undefined;
  rule: RuleRef | undefined = undefined;
  /** Set by the step that ends the call. */
  outcome: CallOutcome = 'internal_error';
  started = 0;
  durationMs: number | undefined = undefined;
  reply: OxpServerReply | undefined = undefined;
  admission: Admission | undefined = undefined;
  /** Aborted when the client goes away while the tool runs. */
  signal: AbortSignal | undefined = undefined;
  /** The OXP request's span (its ids on the log line). */
  span: TraceSpan | undefined = undefined;
  /** The MCP server's task the call ran as, when it ran as one (the log line's `mcp_task_id`). */
  mcpTaskId: string | undefined = undefined;
  /** The oxp-server's per-call line is a debug line: its calls are its MCP servers' calls, logged by them. */
  readonly logLevel: CallLogLevel = 'debug';
  /** The body's `request` (its envelope read), once resolved. */
  request: Record<string, unknown> | undefined = undefined;
  /** The input and context as checked, for the run. */
  input: JsonObject = {};
  context: JsonObject | undefined = undefined;
  /** Why the face refused the body (resolve, check), or the gate's refusal: what the face renders instead of a reply. */
  rejection: CallRejection | undefined = undefined;
  refusal: GateRefusal | undefined = undefined;
  /** A tool hidden from the caller: the answer its id gets in the caller's view (an unknown id's), rendered once it is denied. */
  unknown: CallRejection | undefined = undefined;
  /** What the body names, read without trusting it (the record's, until the call is checked: then as checked). */
  args: unknown;
  callId: string | undefined;
  traceId: string | undefined = undefined;
  readonly askedToolId: string | undefined;

  /** @param caller who called (the key's principal, the JWT's, or the anonymous one) */
  constructor(
    readonly caller: Principal,
    readonly client: string | undefined,
    readonly body: unknown,
    readonly res: ServerResponse,
  ) {
    const asked = requestedCall(body);
    this.args = asked.input;
    this.callId = asked.callId;
    this.askedToolId = asked.toolId;
  }

  /** The tool's name on its MCP server (absent for the embedded demo toolkit). */
  get toolName(): string | undefined {
    return this.tool?.mcpName;
  }

  get toolKey(): string {
    return this.tool?.key ?? '';
  }

  get oxpId(): string | undefined {
    return this.tool ? `${this.tool.key}@${this.tool.version}` : this.askedToolId;
  }

  /** The toolkit (the tool id's first part). */
  get upstream(): string | undefined {
    return this.tool ? this.tool.key.slice(0, this.tool.key.indexOf('.')) : undefined;
  }

  logFields(line: LineFields): string {
    traceFields(line, this.span, this.traceId);
    line.text('mcp_task_id', this.mcpTaskId);
    return 'OXP call';
  }

  endUnanswered(outcome: UnansweredOutcome): void {
    this.outcome = outcome;
  }
}
