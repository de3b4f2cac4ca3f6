/**
 * The HTTP edge's classification: one POST (headers, the body parsed once,
 * the principal admission authenticated) becomes one InboundRequest and one route — answered
 * by the face itself (hot-path.ts: plain tools/call and tools/list), or
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
import { effectiveRevision, eraOfClaim, HEADERLESS_LEGACY_REVISION, newestRevision, type McpRevision } from '../../core/mcp-versions.js';
import { JSONRPC_SESSION_NOT_FOUND } from '../../core/mcp-wire.js';
import { pickTraceparent } from '../../core/trace.js';
import type { HttpRefusal, Principal } from './inbound-auth.js';
import { inboundMessages, messageKey, type InboundMessage, type InboundRequest } from './inbound.js';
import {
  CLIENT_CAPABILITIES_META_KEY,
  declaresTasksExtension,
  declaresUrlElicitation,
  isSupportedLegacyRevision,
  TRACEPARENT_META_KEY,
} from './mcp-sdk-facts.js';
import type { InboundClassificationOutcome } from './mcp-server-sdk.js';
import { refusal } from './admission.js';
import { classifyHot, type HotShape } from './hot-classify.js';
import type { SessionCodec, SessionState } from './session.js';
import type { CallSignal } from '../../platform/shared/call-signal.js';

export const SESSION_HEADER = 'mcp-session-id';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export interface HttpEdgeInput {
  method: string;
  headers: IncomingHttpHeaders;
  /** The parsed body (POST with a JSON body only). */
  body?: unknown;
  principal?: Principal | undefined;
  /** The peer's address (the audit trail names it). */
  client?: string | undefined;
  /** The client going away: its AbortSignal is made when something reads the InboundRequest's (client-gone.ts). */
  clientGone: CallSignal & { readonly signal: AbortSignal };
}

/** What only the SDK knows (mcp-server-sdk.ts, loaded when the first request needs it): everything but the hot shapes. */
export interface SdkClassifier {
  classifyInboundRequest: typeof import('./mcp-server-sdk.js').classifyInboundRequest;
  initializeSucceeds(message: unknown): boolean;
  negotiatedLegacyRevision(requested: unknown): string;
}

export type Classified =
  | { route: 'refuse'; answer: HttpRefusal }
  | {
      route: 'classified';
      inbound: InboundRequest;
      outcome?: InboundClassificationOutcome;
      /** A hot shape (hot-classify.ts), which the face may answer itself (hot-path.ts). */
      hot?: HotShape;
      session?: SessionState;
      mintSession?: { revision: string; urlElicitation: boolean };
    };

export function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * The request's classification and InboundRequest. A hot shape needs nothing of the SDK; anything else with a body
 * needs `sdk`, and without it the answer is undefined: load the SDK and ask again.
 */
export function classifyHttp(input: HttpEdgeInput, sessions: SessionCodec, sdk: SdkClassifier | undefined): Classified | undefined {
  const { headers, body } = input;
  const headerRevision = header(headers, 'mcp-protocol-version');
  const hot = body === undefined ? undefined : classifyHot(input.method, headers, body);
  let outcome: InboundClassificationOutcome | undefined = hot?.outcome;
  if (!hot && body !== undefined) {
    if (!sdk) return undefined;
    outcome = sdkOutcome(sdk, input.method, headers, headerRevision, body);
  }
  const headerModern = headerRevision !== undefined && eraOfClaim(headerRevision) === 'modern';
  const modern = outcome?.kind === 'modern' || (outcome === undefined && headerModern);

  // Sessions are 2025-era only: a request naming a modern revision never uses one.
  let session: SessionState | undefined;
  const sessionId = header(headers, SESSION_HEADER);
  if (sessionId !== undefined && !headerModern) {
    session = sessions.verify(sessionId);
    if (!session) return { route: 'refuse', answer: refusal(404, JSONRPC_SESSION_NOT_FOUND, 'Session not found: initialize a new session') };
  }

  const traceparent = header(headers, 'traceparent');
  const clientGone = input.clientGone;
  const capabilities = envelopeCapabilities(outcome);
  // Set field by field rather than spread: one object per request, not one per optional field.
  const inbound: Mutable<InboundRequest> = {
    transport: 'http',
    era: modern ? 'modern' : 'legacy',
    revision: modern ? modernRevision(outcome, headerRevision) : legacyRevision(headerRevision, session),
    urlElicitation: modern ? declaresUrlElicitation(capabilities) : session?.urlElicitation === true,
    get signal() {
      return clientGone.signal;
    },
    headers,
    messages: hot ? hotMessages(hot, traceparent) : body === undefined ? new Map() : inboundMessages(body, traceparent),
    callSignal: clientGone,
  };
  if (input.principal) inbound.principal = input.principal;
  if (input.client !== undefined) inbound.client = input.client;
  if (modern && declaresTasksExtension(capabilities)) inbound.tasksExtension = true;
  if (modern && !hot && outcome?.kind === 'modern') {
    const taskIds = requestedTaskIds(body);
    if (taskIds) inbound.taskIds = taskIds;
  }
  if (session && sessionId !== undefined) inbound.sessionId = sessionId;
  if (hot) return { route: 'classified', inbound, outcome: hot.outcome, hot, session };
  return {
    route: 'classified',
    inbound,
    ...(outcome ? { outcome } : {}),
    ...(session ? { session } : {}),
    ...(outcome?.kind === 'legacy' && outcome.reason === 'initialize' && sdk!.initializeSucceeds(body) ? { mintSession: mintFor(sdk!, body) } : {}),
  };
}

/** A hot shape's one message (inbound.ts's facts, from the shape read once: its `_meta` carries no progress token). */
function hotMessages(hot: HotShape, headerTraceparent: string | undefined): Map<string, InboundMessage> {
  const { id, method } = hot.request;
  const traceparent = pickTraceparent(headerTraceparent, hot.meta?.[TRACEPARENT_META_KEY]);
  return new Map([[messageKey(id), typeof traceparent === 'string' ? { id, method, traceparent } : { id, method }]]);
}

/** The SDK's own classification (`classifyInboundRequest`, the function `createMcpHandler` routes with). */
function sdkOutcome(sdk: SdkClassifier, method: string, headers: IncomingHttpHeaders, headerRevision: string | undefined, body: unknown) {
  return sdk.classifyInboundRequest({
    httpMethod: method,
    ...(headerRevision !== undefined ? { protocolVersionHeader: headerRevision } : {}),
    ...(headers['mcp-method'] !== undefined ? { mcpMethodHeader: header(headers, 'mcp-method') } : {}),
    ...(headers['mcp-name'] !== undefined ? { mcpNameHeader: header(headers, 'mcp-name') } : {}),
    body,
  });
}

/**
 * The revision a modern request claims (the classification read it from the envelope), else its header's, else the
 * newest: one the bridge does not know is refused on the SDK's way (unsupported protocol version).
 */
function modernRevision(outcome: InboundClassificationOutcome | undefined, headerRevision: string | undefined): McpRevision {
  const claimed = (outcome?.kind === 'modern' ? outcome.classification.revision : undefined) ?? headerRevision;
  return claimed !== undefined ? effectiveRevision(claimed) : newestRevision();
}

/** The version header (validated by the SDK on its way), else the session's, else the transport default. */
function legacyRevision(headerRevision: string | undefined, session: SessionState | undefined): McpRevision {
  if (headerRevision !== undefined && isSupportedLegacyRevision(headerRevision)) return effectiveRevision(headerRevision);
  if (session && isSupportedLegacyRevision(session.revision)) return effectiveRevision(session.revision);
  return HEADERLESS_LEGACY_REVISION;
}

function envelopeCapabilities(outcome: InboundClassificationOutcome | undefined): unknown {
  if (outcome?.kind !== 'modern') return undefined;
  const params = outcome.message.params as { _meta?: Record<string, unknown> } | undefined;
  return params?._meta?.[CLIENT_CAPABILITIES_META_KEY];
}

/** What a successful `initialize` seals into the session id: the revision the SDK answers with, and URL elicitation. */
function mintFor(sdk: SdkClassifier, body: unknown): { revision: string; urlElicitation: boolean } {
  const params = isPlainObject(body) && isPlainObject(body.params) ? body.params : {};
  return { revision: sdk.negotiatedLegacyRevision(params.protocolVersion), urlElicitation: declaresUrlElicitation(params.capabilities) };
}
