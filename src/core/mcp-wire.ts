/**
 * The MCP shapes the bridge emits, in their newest (2026-07-28) form.
 * Projection to older revisions happens in project.ts, never here.
 */
import type { JsonObject, JsonValue } from './json.js';

export interface McpTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonObject;
  /** Any JSON Schema root here; project.ts wraps non-object roots for 2025-era peers. */
  outputSchema?: JsonObject;
  annotations?: JsonObject;
  icons?: JsonValue[];
  execution?: JsonObject;
  _meta?: JsonObject;
}

export type McpContentBlock = { type: string; [key: string]: JsonValue | undefined };

export interface McpCallToolResult {
  content: McpContentBlock[];
  /** Any JSON value here; project.ts wraps or strips it per revision. */
  structuredContent?: JsonValue;
  isError?: boolean;
  _meta?: JsonObject;
  resultType?: 'complete';
}

export interface McpListToolsResult {
  tools: McpTool[];
  nextCursor?: string;
  ttlMs?: number;
  cacheScope?: 'public' | 'private';
  _meta?: JsonObject;
  resultType?: 'complete';
}

/** A JSON-RPC error the front must send instead of a result. */
export interface McpErrorReply {
  code: number;
  message: string;
  data?: JsonValue;
}

export const JSONRPC_INVALID_PARAMS = -32602;
export const JSONRPC_INTERNAL_ERROR = -32603;
/** 2025-11-25 only: the client must complete a URL-mode elicitation first. */
export const JSONRPC_URL_ELICITATION_REQUIRED = -32042;
/** 2026-07-28: the request needs a capability the client did not declare (`data.requiredCapabilities`). */
export const JSONRPC_MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;
/** The 2026-07-28 tasks extension's identifier. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The `_meta` key under which every bridge-produced error result describes itself for programs. */
export const ERROR_META_KEY = 'mcp-oxp-bridge/error';
/** The `_meta` key on tools naming the OXP tool behind them. */
export const TOOL_META_KEY = 'mcp-oxp-bridge/oxp-tool';
