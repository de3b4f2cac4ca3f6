/**
 * One OXP `POST /tools/call` as the call gate sees it (calls/gate.ts): made by the face from the request, once
 * parsed or once refused. What only a record reads (the tool's MCP name, its versioned id, its toolkit) is derived
 * when read, so a call nobody records pays nothing for it.
 */
import { traceFields, type Admission, type CallLogLevel, type GateCall } from '../../calls/gate.js';
import type { RuleRef } from '../../core/access-policy.js';
import type { OxpServerReply } from '../../core/oxp-wire.js';
import type { Principal } from '../../core/principal.js';
import type { TraceSpan } from '../../platform/telemetry/tracer.js';
import type { SourceTool } from './tool-source.js';

export class OxpCall<T extends SourceTool = SourceTool> implements GateCall<T, OxpServerReply> {
  readonly revision = 'oxp-1.0';
  readonly protocol = 'oxp/1.0';
  principal: Principal | undefined = undefined;
  tool: T | undefined = undefined;
  rule: RuleRef | undefined = undefined;
  /** Thrown before an answer: `cancelled`, unless the face says otherwise. */
  outcome = 'cancelled';
  started = 0;
  durationMs: number | undefined = undefined;
  reply: OxpServerReply | undefined = undefined;
  admission: Admission | undefined = undefined;
  /** The OXP request's span, once made (its ids on the log line). */
  span: TraceSpan | undefined = undefined;
  /** The MCP server's task the call ran as, when it ran as one (the log line's `mcp_task_id`). */
  mcpTaskId: string | undefined = undefined;
  /** The oxp-server's per-call line is a debug line: its calls are its MCP servers' calls, logged by them. */
  readonly logLevel: CallLogLevel = 'debug';

  /**
   * @param caller who called (the key's principal, the JWT's, or the anonymous one)
   * @param askedToolId the `tool_id` the client sent, for a call whose tool did not resolve
   */
  constructor(
    readonly caller: Principal,
    readonly client: string | undefined,
    readonly args: unknown,
    readonly callId: string | undefined,
    readonly traceId: string | undefined,
    private readonly askedToolId?: string,
  ) {}

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

  logFields(line: Record<string, unknown>): string {
    traceFields(line, this.span, this.traceId);
    if (this.mcpTaskId !== undefined) line.mcp_task_id = this.mcpTaskId;
    return 'OXP call';
  }

  /** The toolkit (the tool id's first part). */
  get upstream(): string | undefined {
    return this.tool ? this.tool.key.slice(0, this.tool.key.indexOf('.')) : undefined;
  }
}
