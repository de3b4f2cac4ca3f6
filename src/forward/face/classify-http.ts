/**
 * The HTTP edge's classification: one POST (headers, the body parsed once,
 * the gate's principal) becomes one InboundRequest and one route — answered
 * by the front itself (hot-path.ts: plain tools/call and tools/list), or
 * handed to the SDK's endpoint. The era decision is the SDK's own
 * (`classifyInboundRequest`, the function `createMcpHandler` routes with), so
 * the two routes cannot disagree about what a request is — except for the two
 * hot shapes (plain tools/call and tools/list), which hot-classify.ts
 * recognises itself with the same outcome, because the SDK's classifier is
 * the largest single cost of a plain call; anything else still goes to it.
 *
 * The bridge owns one step the SDK does not have: 2025-era session ids that
 * carry their own state (session.ts). A legacy request naming an id that is
 * not genuine is answered 404 here; a genuine id supplies the revision (when
 * the client sent no `MCP-Protocol-Version` header) and the URL-elicitation
 * capability its `initialize` declared.
 */
import { requestedTaskIds } from './task-notifications.js';
import type { IncomingHttpHeaders } from 'node:http';
import { isPlainObject } from '../../core/json.js';
import { effectiveVersion, eraOfClaim, HEADERLESS_LEGACY_VERSION, newestVersion, type McpVersion } from '../../core/mcp-versions.js';
import type { HttpRefusal, Principal } from './inbound-auth.js';
import { inboundMessages, type InboundRequest } from './inbound.js';
import {
  CLIENT_CAPABILITIES_META_KEY,
  classifyInboundRequest,
  declaresTasksExtension,
  declaresUrlElicitation,
  initializeSucceeds,
  isSupportedLegacyVersion,
  negotiatedLegacyVersion,
  type InboundClassificationOutcome,
} from './mcp-server-sdk.js';
import { refusal } from './admission.js';
import { classifyHotShape } from './hot-classify.js';
import type { SessionCodec, SessionState } from './session.js';
import { JSONRPC_SESSION_NOT_FOUND } from '../../core/mcp-wire.js';

export const SESSION_HEADER = 'mcp-session-id';

export interface HttpEdgeInput {
  method: string;
  headers: IncomingHttpHeaders;
  /** The parsed body (POST with a JSON body only). */
  body?: unknown;
  principal?: Principal | undefined;
  /** The peer's address (the audit trail names it). */
  client?: string | undefined;
  signal: AbortSignal;
}

export type Classified =
  | { route: 'refuse'; answer: HttpRefusal }
  | {
      route: 'classified';
      inbound: InboundRequest;
      outcome?: InboundClassificationOutcome;
      session?: SessionState;
      mintSession?: { version: string; urlElicitation: boolean };
    };

export function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
}

export function classifyHttp(input: HttpEdgeInput, sessions: SessionCodec): Classified {
  const { headers, body } = input;
  const headerVersion = header(headers, 'mcp-protocol-version');
  const outcome = body === undefined ? undefined : classifyBody(input.method, headers, headerVersion, body);
  const headerModern = headerVersion !== undefined && eraOfClaim(headerVersion) === 'modern';
  const modern = outcome?.kind === 'modern' || (outcome === undefined && headerModern);

  // Sessions are 2025-era only: a request naming a modern revision never uses one.
  let session: SessionState | undefined;
  const sessionId = header(headers, SESSION_HEADER);
  if (sessionId !== undefined && !headerModern) {
    session = sessions.verify(sessionId);
    if (!session) return { route: 'refuse', answer: refusal(404, JSONRPC_SESSION_NOT_FOUND, 'Session not found: initialize a new session') };
  }

  const traceparent = header(headers, 'traceparent');
  const inbound: InboundRequest = {
    transport: 'http',
    era: modern ? 'modern' : 'legacy',
    revision: modern ? modernRevision(outcome, headerVersion) : legacyRevision(headerVersion, session),
    ...(input.principal ? { principal: input.principal } : {}),
    ...(input.client !== undefined ? { client: input.client } : {}),
    urlElicitation: modern ? declaresUrlElicitation(envelopeCapabilities(outcome)) : session?.e === 1,
    ...(modern && declaresTasksExtension(envelopeCapabilities(outcome)) ? { tasksExtension: true } : {}),
    ...(modern && outcome?.kind === 'modern' ? listenedTaskIds(body) : {}),
    signal: input.signal,
    ...(session && sessionId !== undefined ? { sessionId } : {}),
    headers,
    messages: body === undefined ? new Map() : inboundMessages(body, traceparent),
  };
  return {
    route: 'classified',
    inbound,
    ...(outcome ? { outcome } : {}),
    ...(session ? { session } : {}),
    ...(outcome?.kind === 'legacy' && outcome.reason === 'initialize' && initializeSucceeds(body) ? { mintSession: mintFor(body) } : {}),
  };
}

/** A modern `subscriptions/listen` request's `notifications.taskIds`, as the inbound value's field. */
function listenedTaskIds(body: unknown): { taskIds?: readonly string[] } {
  const taskIds = requestedTaskIds(body);
  return taskIds ? { taskIds } : {};
}

/** The hot shapes by the bridge's own check (hot-classify.ts); anything else, or anything it is unsure of, by the SDK. */
function classifyBody(method: string, headers: IncomingHttpHeaders, headerVersion: string | undefined, body: unknown): InboundClassificationOutcome {
  return (
    classifyHotShape(method, headers, body) ??
    classifyInboundRequest({
      httpMethod: method,
      ...(headerVersion !== undefined ? { protocolVersionHeader: headerVersion } : {}),
      ...(headers['mcp-method'] !== undefined ? { mcpMethodHeader: header(headers, 'mcp-method') } : {}),
      ...(headers['mcp-name'] !== undefined ? { mcpNameHeader: header(headers, 'mcp-name') } : {}),
      body,
    })
  );
}

/**
 * The revision a modern request claims (the SDK's classification read it from the envelope), else its header's, else
 * the newest: one the bridge does not know is refused on the SDK's way (unsupported protocol version).
 */
function modernRevision(outcome: InboundClassificationOutcome | undefined, headerVersion: string | undefined): McpVersion {
  const claimed = (outcome?.kind === 'modern' ? outcome.classification.revision : undefined) ?? headerVersion;
  return claimed !== undefined ? effectiveVersion(claimed) : newestVersion();
}

/** The version header (validated by the SDK on its way), else the session's, else the transport default. */
function legacyRevision(headerVersion: string | undefined, session: SessionState | undefined): McpVersion {
  if (headerVersion !== undefined && isSupportedLegacyVersion(headerVersion)) return effectiveVersion(headerVersion);
  if (session && isSupportedLegacyVersion(session.v)) return effectiveVersion(session.v);
  return HEADERLESS_LEGACY_VERSION;
}

function envelopeCapabilities(outcome: InboundClassificationOutcome | undefined): unknown {
  if (outcome?.kind !== 'modern') return undefined;
  const params = outcome.message.params as { _meta?: Record<string, unknown> } | undefined;
  return params?._meta?.[CLIENT_CAPABILITIES_META_KEY];
}

/** What a successful `initialize` seals into the session id: the revision the SDK answers with, and URL elicitation. */
function mintFor(body: unknown): { version: string; urlElicitation: boolean } {
  const params = isPlainObject(body) && isPlainObject(body.params) ? body.params : {};
  return { version: negotiatedLegacyVersion(params.protocolVersion), urlElicitation: declaresUrlElicitation(params.capabilities) };
}
