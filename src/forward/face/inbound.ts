/**
 * The one value every MCP request becomes at the edge, whatever its
 * transport: what the rest of the face needs to know about it, worked out
 * once. Nothing downstream reads a header or a `_meta` key again, and no
 * synthetic header carries anything between layers.
 *
 * HTTP builds it in classify-http.ts (from the method, headers, the body
 * parsed once and the verified session id); stdio builds it per message in
 * the SDK adapter (mcp-server-sdk.ts), because the SDK owns stdio framing and
 * the `initialize` negotiation of a stdio connection.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { McpEra, McpRevision } from '../../core/mcp-versions.js';
import type { Principal } from './inbound-auth.js';
import { pickTraceparent } from '../../core/trace.js';
import type { CallSignal } from '../../platform/shared/call-signal.js';

/** Per JSON-RPC request facts (a 2025-era batch holds several). */
export interface InboundMessage {
  readonly id: string | number;
  readonly method: string;
  /** `_meta.progressToken`: the client wants `notifications/progress`. */
  readonly progressToken?: string | number;
  /** W3C trace context: the `traceparent` header wins over `_meta.traceparent`. */
  readonly traceparent?: string;
}

export interface InboundRequest {
  readonly transport: 'http' | 'stdio';
  /** The per-request envelope (`modern`, 2026-07-28 on) or a 2025-era session (`legacy`): the revision's era. */
  readonly era: McpEra;
  /** The revision the answer is projected to. */
  readonly revision: McpRevision;
  /** Who asked, when the face authenticated someone. */
  readonly principal?: Principal;
  /** The peer's address (HTTP), for the audit trail. */
  readonly client?: string;
  /** The client can take URL-mode elicitation (envelope, verified session, or stdio initialize). */
  readonly urlElicitation: boolean;
  /** 2026-07-28: this request's client capabilities declare the tasks extension (`io.modelcontextprotocol/tasks`). */
  readonly tasksExtension?: boolean;
  /** 2026-07-28 `subscriptions/listen` naming `notifications.taskIds`: those ids (task-notifications.ts). */
  readonly taskIds?: readonly string[];
  /** Aborted when the client goes away (HTTP: the response closed before it was finished). */
  readonly signal: AbortSignal;
  /**
   * The same, as a CallSignal that makes no AbortController unless something asks for `signal` (HTTP,
   * client-gone.ts): what a call takes when nothing else joins it.
   */
  readonly callSignal?: CallSignal;
  /** The verified 2025-era session id (stateless HTTP), which addresses `notifications/cancelled`. */
  readonly sessionId?: string;
  /** The request's HTTP headers (per-user authorization tokens ride on them). */
  readonly headers?: IncomingHttpHeaders;
  /** The JSON-RPC requests it carries, by `messageKey(id)`. */
  readonly messages: ReadonlyMap<string, InboundMessage>;
}

export function messageKey(id: unknown): string {
  return `${typeof id}:${String(id)}`;
}

/** The per-message facts of one JSON-RPC request object; undefined for anything that is not a request. */
export function inboundMessage(message: unknown, headerTraceparent: string | undefined): InboundMessage | undefined {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return undefined;
  const m = message as { id?: unknown; method?: unknown; params?: unknown };
  if ((typeof m.id !== 'string' && typeof m.id !== 'number') || typeof m.method !== 'string') return undefined;
  const params = m.params !== null && typeof m.params === 'object' ? (m.params as { _meta?: unknown }) : undefined;
  const meta = params?._meta !== null && typeof params?._meta === 'object' ? (params._meta as Record<string, unknown>) : undefined;
  const progressToken = meta?.progressToken;
  // The first valid one, header before _meta (docs/observability.md).
  const traceparent = pickTraceparent(headerTraceparent, meta?.traceparent);
  return {
    id: m.id,
    method: m.method,
    ...(typeof progressToken === 'string' || typeof progressToken === 'number' ? { progressToken } : {}),
    ...(typeof traceparent === 'string' ? { traceparent } : {}),
  };
}

/** Every request message of a body (one message or a batch). */
export function inboundMessages(body: unknown, headerTraceparent: string | undefined): Map<string, InboundMessage> {
  const messages = new Map<string, InboundMessage>();
  for (const message of Array.isArray(body) ? body : [body]) {
    const facts = inboundMessage(message, headerTraceparent);
    if (facts) messages.set(messageKey(facts.id), facts);
  }
  return messages;
}
