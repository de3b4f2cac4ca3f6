/**
 * What the OXP HTTP face (app.ts) serves: a ToolSource. The embedded demo
 * toolkit (demo/local-tools.ts) and the MCP upstreams of the oxp-server
 * command (reverse/bridge/mcp-upstreams.ts) are the two implementations, each
 * kept with its owner (this folder is the face only). The face owns
 * everything OXP says about the wire (`$schema`, version resolution, input
 * validation, `call_id`, `duration`, status codes); a source only runs a
 * resolved tool.
 */
import type { JsonObject } from '../../core/json.js';
import type { OxpRequirements, OxpServerReply, UnavailableBody } from '../../core/oxp-wire.js';
import type { TraceSpan } from '../../platform/telemetry/tracer.js';

export interface SourceTool {
  /** `Toolkit.Tool`, without version. */
  readonly key: string;
  /** `x.y.z` */
  readonly version: string;
  /** The ToolDefinition exactly as `GET /tools` lists it. */
  readonly definition: JsonObject;
  readonly inputSchema: JsonObject;
  readonly requirements?: OxpRequirements;
  /**
   * The tool's own name where it comes from (oxp-server: its name on the MCP server), which access rules'
   * `tools.names` match; absent (the embedded demo toolkit), they match the OXP `name`.
   */
  readonly mcpName?: string;
}

export interface SourceCall {
  /** The client's `call_id`, or one generated for it. */
  callId: string;
  traceId?: string;
  /** Only what the tool declared in its requirements. */
  context?: JsonObject;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** The OXP request's span: the parent of what the source does for the call. */
  span?: TraceSpan;
  /** Told the id of the MCP task the call runs as (oxp-server, a tool that requires tasks), for the per-call log line. */
  onTask?: (taskId: string) => void;
}

export interface ToolSource<T extends SourceTool = SourceTool> {
  /** The current catalog; a new array whenever it changes (the face re-indexes by identity). */
  tools(): readonly T[];
  /** `GET /health`: 200 when true, 503 otherwise. */
  ready(): boolean;
  /** Extra members of the `/health` body (e.g. per-upstream state). Public: nothing secret. */
  health?(): JsonObject;
  /**
   * A tool id the catalog does not hold (yet): the 503 answer when the tool
   * may belong to a server that has not listed its tools yet; undefined for
   * a plain "not found".
   */
  notListedYet?(key: string): UnavailableBody | undefined;
  /**
   * How whole the catalog is, for `GET /tools`: `pending` sources have not listed their tools yet (said in the
   * CATALOG_PENDING_HEADER); `unavailable` when none has, which `GET /tools` answers with a 503 rather than an empty
   * list a client would take for "no tools". Absent: the catalog is always whole (the embedded demo toolkit).
   */
  catalogState?(): CatalogState;
  call(tool: T, input: JsonObject, call: SourceCall): Promise<OxpServerReply>;
}

export interface CatalogState {
  pending: number;
  unavailable?: UnavailableBody;
}
