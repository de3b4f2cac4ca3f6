/**
 * The MCP server SDK's wire facts the HTTP edge needs before the SDK is loaded: the `_meta` keys of the 2026-07-28
 * envelope, the 2025-era revisions the SDK accepts, and what a client's declared capabilities say. The two hot shapes
 * (plain tools/call and tools/list) are classified and answered from these alone (classify-http.ts, hot-path.ts), so
 * the first request after ready does not wait for the SDK's load (bench/README.md, issue 39).
 *
 * Literal copies of the SDK's constants (`@modelcontextprotocol/server` 2.4.0, pinned), held to them one by one by
 * mcp-server-sdk.test.ts; mcp-server-sdk.ts, the SDK's only importer, re-exports them.
 */
import { SDK_SUPPORTED_PROTOCOL_VERSIONS } from '../../core/mcp-versions.js';
import { TASKS_EXTENSION } from '../../core/mcp-wire.js';

export const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';
export const CLIENT_INFO_META_KEY = 'io.modelcontextprotocol/clientInfo';
export const CLIENT_CAPABILITIES_META_KEY = 'io.modelcontextprotocol/clientCapabilities';
export const TRACEPARENT_META_KEY = 'traceparent';
export const TRACESTATE_META_KEY = 'tracestate';

/** The SDK's SUPPORTED_PROTOCOL_VERSIONS: the revisions a 2025-era request may name (kept in the revision table). */
export { SDK_SUPPORTED_PROTOCOL_VERSIONS };

export function isSupportedLegacyRevision(version: string): boolean {
  return SDK_SUPPORTED_PROTOCOL_VERSIONS.includes(version);
}

/** Whether declared client capabilities include the tasks extension (2026-07-28, per request). */
export function declaresTasksExtension(capabilities: unknown): boolean {
  const declared = capabilities as { extensions?: Record<string, unknown> } | undefined;
  const extensions = declared !== null && typeof declared === 'object' ? declared.extensions : undefined;
  return extensions !== null && typeof extensions === 'object' && Object.hasOwn(extensions, TASKS_EXTENSION);
}

/** Whether declared client capabilities include URL-mode elicitation. */
export function declaresUrlElicitation(capabilities: unknown): boolean {
  const declared = capabilities as { elicitation?: { url?: unknown } } | undefined;
  return (
    declared !== null &&
    typeof declared === 'object' &&
    declared.elicitation !== null &&
    typeof declared.elicitation === 'object' &&
    declared.elicitation.url !== undefined
  );
}
