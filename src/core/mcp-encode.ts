/**
 * How the bridge writes an MCP answer on the wire, in one place for everything that writes one: the MCP face's hot
 * path (forward/face/hot-path.ts) and the console's per-revision views (console/bridge-console.ts). Pure: JSON in, JSON
 * or text out.
 *
 * These are the SDK's encodings, owned because the SDK does not export its encoder: the 2026-07-28 encode contract of
 * a `complete` result (`resultType`, the cache fields of `tools/list`, the server's identity in `_meta`), the
 * JSON-RPC error body with its keys in the SDK's order, and the 2025-era stateless SSE framing (one `message` event,
 * keep-alive comments). test/integration/differential.test.ts holds the bytes to a plain SDK server's answers; the
 * SERVER_INFO_META_KEY literal is held to the SDK's constant by src/forward/face/mcp-server-sdk.test.ts. Delete this module
 * when the SDK exports an encoder for a result computed outside its request pipeline.
 */
import { isPlainObject } from './json.js';
import type { McpErrorReply } from './mcp-wire.js';

/** Where a 2026-07-28 result names the server that wrote it (the SDK's `SERVER_INFO_META_KEY`). */
export const SERVER_INFO_META_KEY = 'io.modelcontextprotocol/serverInfo';

/**
 * The SDK's 2026-07-28 encode contract for a `complete` result: stamp `resultType`, fill `ttlMs`/`cacheScope` on
 * cacheable results (tools/list), stamp `io.modelcontextprotocol/serverInfo` into `_meta` unless present.
 */
export function encodeModernResult(method: string, result: Record<string, unknown>, serverInfo: { name: string; version: string }): Record<string, unknown> {
  let out = result.resultType === undefined ? { ...result, resultType: 'complete' } : result;
  if (method === 'tools/list' && out.resultType === 'complete') {
    const ttlMs = typeof out.ttlMs === 'number' && Number.isInteger(out.ttlMs) && out.ttlMs >= 0 ? out.ttlMs : 0;
    const cacheScope = out.cacheScope === 'public' || out.cacheScope === 'private' ? out.cacheScope : 'private';
    if (out.ttlMs !== ttlMs || out.cacheScope !== cacheScope) out = { ...out, ttlMs, cacheScope };
  }
  const meta = out._meta;
  if (meta === undefined) return { ...out, _meta: { [SERVER_INFO_META_KEY]: serverInfo } };
  if (!isPlainObject(meta) || meta[SERVER_INFO_META_KEY] !== undefined) return out;
  return { ...out, _meta: { ...meta, [SERVER_INFO_META_KEY]: serverInfo } };
}

/** A JSON-RPC error message, keys in the SDK's order. */
export function jsonRpcErrorMessage(id: string | number | null, error: McpErrorReply): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id,
    error: error.data === undefined ? { code: error.code, message: error.message } : { code: error.code, message: error.message, data: error.data },
  };
}

/** The 2025-era stateless answer stream: its headers, the keep-alive comment, and the one `message` event. */
export const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
} as const;
export const SSE_KEEPALIVE = ': keepalive\n\n';
export function sseMessageEvent(json: string): string {
  return `event: message\ndata: ${json}\n\n`;
}
