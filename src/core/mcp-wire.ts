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

/** A JSON-RPC error the face must send instead of a result. */
export interface McpErrorReply {
  code: number;
  message: string;
  data?: JsonValue;
}

/*
 * Every JSON-RPC and MCP error code the bridge answers with, named once (no other module spells one as a number,
 * pinned by test/architecture/error-codes.test.ts). JSON-RPC 2.0 reserves -32768…-32000; -32000…-32099 are the
 * server's own, where MCP and the bridge pick theirs.
 */
/** The message is not JSON (JSON-RPC 2.0). */
export const JSONRPC_PARSE_ERROR = -32700;
/** Not a valid JSON-RPC request: a wrong shape, a batch refused, a body nested too deep (JSON-RPC 2.0). */
export const JSONRPC_INVALID_REQUEST = -32600;
/** An unknown method, and (2025-11-25 tasks) a task call a tool's `execution.taskSupport` does not allow (JSON-RPC 2.0). */
export const JSONRPC_METHOD_NOT_FOUND = -32601;
export const JSONRPC_INVALID_PARAMS = -32602;
export const JSONRPC_INTERNAL_ERROR = -32603;
/**
 * The server will not take the request now: shutting down is -32603, but a body too large, a Host/Origin refused,
 * a per-client rate limit, too many tasks, a task store that does not answer are this (the server-error range's first).
 */
export const JSONRPC_SERVER_REFUSED = -32000;
/** The request's credentials were refused (the HTTP face's own authentication, before the SDK sees it). */
export const JSONRPC_UNAUTHORIZED = -32001;
/** A 2025-era session id the bridge did not issue, or no longer knows: the client must `initialize` again (the SDK's code). */
export const JSONRPC_SESSION_NOT_FOUND = -32001;
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
