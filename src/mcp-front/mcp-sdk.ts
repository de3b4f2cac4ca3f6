/**
 * The one adapter between the bridge and the MCP TypeScript SDK (v2 line).
 * Nothing else in src/ imports `@modelcontextprotocol/*` at run time
 * (pinned by test/layering.test.ts), so an SDK upgrade touches this file only.
 *
 * The SDK owns JSON-RPC framing, era classification (2026-07-28 `_meta`
 * envelope vs 2025-era `initialize`), header ladders and the 2026 encode
 * (resultType, serverInfo); the bridge owns version resolution and the
 * per-revision projection, because the SDK does not strip fields for older
 * legacy revisions.
 */
import {
  LATEST_PROTOCOL_VERSION,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  SUPPORTED_PROTOCOL_VERSIONS,
  Server,
  TRACEPARENT_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
  UrlElicitationRequiredError,
  createMcpHandler,
  inputRequired,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  isJsonContentType,
  validateHostHeader,
  validateOriginHeader,
  SERVER_INFO_META_KEY,
  CLIENT_INFO_META_KEY,
  TRACESTATE_META_KEY,
  type AuthInfo,
  type McpRequestContext,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { serveStdio as sdkServeStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { effectiveVersion, HEADERLESS_LEGACY_VERSION, MODERN_VERSION, profileFor, type McpVersion } from '../core/mcp-versions.js';
import type { Bridge, Reply, ResumeState } from '../bridge/bridge.js';
import { JSONRPC_URL_ELICITATION_REQUIRED, type McpErrorReply } from '../core/mcp-wire.js';
import type { Principal } from './inbound-auth.js';
import { createSealedStateCodec } from './request-state.js';
import { holdStdinEnd } from './stdio-end.js';
import type { CallCancellations } from './cancellations.js';
import { pickTraceparent } from '../core/trace.js';

export { toNodeHandler, validateHostHeader, validateOriginHeader, localhostAllowedHostnames, localhostAllowedOrigins };
// For the HTTP fast path (fast-path.ts), which must check exactly what the SDK checks.
export {
  isJsonContentType,
  PROTOCOL_VERSION_META_KEY,
  CLIENT_INFO_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
  SERVER_INFO_META_KEY,
  TRACEPARENT_META_KEY,
  TRACESTATE_META_KEY,
};

export interface ServerIdentity {
  name: string;
  version: string;
  instructions?: string;
  /** 32 bytes: seals (AES-256-GCM) the `requestState` of 2026-07-28 input_required rounds. Share it between replicas. */
  stateKey: Uint8Array;
}

/**
 * Set by the HTTP front, from a verified session id, for stateless legacy
 * requests (the SDK instance never saw that session's initialize). Any such
 * header sent by a client is removed before the request reaches the SDK.
 */
export const URL_ELICITATION_HEADER = 'x-mcp-oxp-bridge-url-elicitation';

interface CapabilitiesLike {
  elicitation?: { url?: unknown };
}

/** Whether this request's client can take a URL-mode elicitation. */
function canElicitUrl(server: Server, ctx: ServerContext, httpRequest: Request | undefined): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const declared = (envelope?.[CLIENT_CAPABILITIES_META_KEY] as CapabilitiesLike | undefined) ?? (server.getClientCapabilities() as CapabilitiesLike | undefined);
  if (declared?.elicitation?.url !== undefined) return true;
  return httpRequest?.headers.get(URL_ELICITATION_HEADER) === '1';
}

/**
 * The revision that applies to one request: the modern envelope's claim;
 * else what this connection negotiated in `initialize` (stdio); else the
 * stateless-HTTP `MCP-Protocol-Version` header (which the HTTP front fills
 * from the signed session id when the client omitted it); else 2025-03-26,
 * as the transport spec prescribes for header-less requests.
 */
function resolveVersion(server: Server, ctx: ServerContext, httpRequest: Request | undefined): McpVersion {
  const claimed = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[PROTOCOL_VERSION_META_KEY];
  if (typeof claimed === 'string') return effectiveVersion(claimed);
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- the documented way to read a 2025-era session's version
  const negotiated = server.getNegotiatedProtocolVersion();
  if (negotiated) return effectiveVersion(negotiated);
  const header = httpRequest?.headers.get('mcp-protocol-version');
  return header ? effectiveVersion(header) : HEADERLESS_LEGACY_VERSION;
}

function urlElicitationRequired(error: McpErrorReply): UrlElicitationRequiredError {
  const elicitations = ((error.data as { elicitations?: unknown[] } | undefined)?.elicitations ?? []) as ConstructorParameters<typeof UrlElicitationRequiredError>[0];
  return new UrlElicitationRequiredError(elicitations, error.message);
}

function unwrap<T>(reply: Reply<T>): T {
  if ('error' in reply) throw new ProtocolError(reply.error.code, reply.error.message, reply.error.data);
  return reply.result;
}

/**
 * Builds one low-level SDK server wired to the bridge (per HTTP request, or
 * per stdio connection). `listChanged(era)` says whether that kind of
 * connection can actually receive `notifications/tools/list_changed`: the
 * capability is only advertised where the bridge delivers it.
 */
export function createServerFactory(
  bridge: Bridge,
  identity: ServerIdentity,
  listChanged: (era: 'legacy' | 'modern') => boolean,
  onServer?: (server: Server, era: 'legacy' | 'modern') => void,
  cancellations?: CallCancellations,
) {
  // One codec for every instance: a state minted by one request (or replica with the same key) opens on another.
  const stateCodec = createSealedStateCodec<ResumeState>(identity.stateKey, 900);
  // Bound to the authenticated principal: a state cannot be replayed by someone else.
  const subjectOf = (ctx: ServerContext) => principalOf(ctx.http?.authInfo)?.subject;
  const requestState = { verify: async (state: string, ctx: ServerContext) => stateCodec.open(state, subjectOf(ctx)) };
  return (factoryCtx: McpRequestContext): Server => {
    const server = new Server(
      { name: identity.name, version: identity.version },
      {
        // `logging` lets clients call logging/setLevel; the bridge itself logs to stderr.
        capabilities: { tools: { listChanged: listChanged(factoryCtx.era) }, logging: {} },
        requestState,
        ...(identity.instructions ? { instructions: identity.instructions } : {}),
      },
    );
    const httpRequest = factoryCtx.requestInfo;
    server.setRequestHandler('tools/list', async (request, ctx) => {
      const version = factoryCtx.era === 'modern' ? MODERN_VERSION : resolveVersion(server, ctx, httpRequest);
      const traceparent = pickTraceparent(httpRequest?.headers.get('traceparent'), request.params?._meta?.[TRACEPARENT_META_KEY]); // tracing: header before _meta
      return unwrap(await bridge.listTools(version, request.params?.cursor, traceparent)) as never;
    });
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const version = factoryCtx.era === 'modern' ? MODERN_VERSION : resolveVersion(server, ctx, httpRequest);
      const meta = request.params._meta as Record<string, unknown> | undefined;
      const traceparent = pickTraceparent(httpRequest?.headers.get('traceparent'), meta?.[TRACEPARENT_META_KEY]); // tracing: header before _meta
      const progressToken = meta?.progressToken;
      const state = ctx.mcpReq.requestState<ResumeState>();
      const resume =
        state && typeof state === 'object'
          ? { state, accepted: (ctx.mcpReq.inputResponses?.[state.key] as { action?: unknown } | undefined)?.action === 'accept' }
          : undefined;
      const subject = factoryCtx.authInfo?.extra?.subject;
      // Stateless 2025-era HTTP: the client's notifications/cancelled reaches this call through the registry.
      const cancellable =
        factoryCtx.era === 'legacy' && httpRequest ? cancellations?.track(httpRequest.headers.get('mcp-session-id') ?? undefined, typeof subject === 'string' ? subject : undefined, ctx.mcpReq.id) : undefined;
      const signal = cancellable?.signal ? AbortSignal.any([ctx.mcpReq.signal, cancellable.signal]) : ctx.mcpReq.signal;
      const reply = await bridge
        .callTool(version, request.params.name, request.params.arguments, {
          signal,
        ...(typeof subject === 'string' ? { userId: subject } : {}),
        urlElicitation: canElicitUrl(server, ctx, httpRequest),
        ...(resume ? { resume } : {}),
        ...(httpRequest ? { requestHeaders: httpRequest.headers } : {}),
        ...(traceparent ? { traceparent } : {}),
        ...(typeof progressToken === 'string' || typeof progressToken === 'number'
          ? {
              progress: (progress: number, message: string) =>
                // `message` exists from 2025-03-26 on.
                ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress, ...(profileFor(version).has.progressMessage ? { message } : {}) } }),
            }
          : {}),
        })
        .finally(() => cancellable?.done());
      if ('inputRequired' in reply) {
        const { key, message, url, resume: next } = reply.inputRequired;
        return inputRequired({ inputRequests: { [key]: inputRequired.elicitUrl({ message, url }) }, requestState: stateCodec.mint(next, subjectOf(ctx)) }) as never;
      }
      if ('error' in reply && reply.error.code === JSONRPC_URL_ELICITATION_REQUIRED) throw urlElicitationRequired(reply.error);
      return unwrap(reply) as never;
    });
    onServer?.(server, factoryCtx.era);
    return server;
  };
}

/** The SDK's pass-through `authInfo` for an authenticated principal; the client's token itself is never kept. */
export function authInfoFor(principal: Principal): AuthInfo {
  return { token: '', clientId: principal.clientId ?? principal.subject, scopes: principal.scopes, extra: { subject: principal.subject, ...(principal.clientId ? { clientId: principal.clientId } : {}) } };
}

/** Back from `authInfo` (as the node adapter hands it over) to the principal. */
export function principalOf(authInfo: unknown): Principal | undefined {
  const info = authInfo as AuthInfo | undefined;
  const subject = info?.extra?.subject;
  if (typeof subject !== 'string') return undefined;
  const principal: Principal = { subject, scopes: info!.scopes ?? [] };
  if (typeof info!.extra?.clientId === 'string') principal.clientId = info!.extra.clientId;
  return principal;
}

export interface McpHttpOptions {
  maxRequestBodyBytes: number;
  keepAliveMs: number;
  onerror: (error: Error) => void;
  cancellations?: CallCancellations;
}

/** The fetch-shaped MCP endpoint serving both eras (modern per request, legacy statelessly). */
export function createMcpFetchHandler(bridge: Bridge, identity: ServerIdentity, options: McpHttpOptions) {
  // Modern clients receive list changes on `subscriptions/listen` streams;
  // stateless legacy HTTP has no stream to carry them (GET answers 405).
  const factory = createServerFactory(bridge, identity, (era) => era === 'modern', undefined, options.cancellations);
  const handler = createMcpHandler(factory, {
    legacy: 'stateless',
    responseMode: 'auto',
    keepAliveMs: options.keepAliveMs,
    maxRequestBodySize: options.maxRequestBodyBytes,
    onerror: options.onerror,
  });
  return {
    /**
     * `principal`, when the front authenticated one, reaches handlers as `authInfo` (without the token);
     * `parsedBody`: the request's body, already read and parsed by the caller (the SDK then reads nothing).
     */
    fetch: (request: Request, principal?: Principal, parsedBody?: unknown) =>
      handler.fetch(request, {
        ...(principal ? { authInfo: authInfoFor(principal) } : {}),
        ...(parsedBody !== undefined ? { parsedBody } : {}),
      }),
    close: () => handler.close(),
    notifyToolsChanged: () => handler.notify.toolsChanged(),
  };
}

/**
 * The revision the SDK's `initialize` handler answers with for a requested
 * one: the same rule as the SDK (echo a supported version, else the latest).
 */
export function negotiatedLegacyVersion(requested: unknown): string {
  return typeof requested === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
}

export function isSupportedLegacyVersion(version: string): boolean {
  return SUPPORTED_PROTOCOL_VERSIONS.includes(version);
}

/** The longest stdio message (one line) the bridge reads; a longer one ends the connection. */
export const STDIO_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

export interface StdioEnd {
  /** Why the transport closed when it was not stdin's end of file (e.g. a message over the bound). */
  failure?: string;
}

/**
 * Serves MCP over this process's stdin/stdout, both eras. A legacy
 * connection is told about catalog changes with
 * `notifications/tools/list_changed`; a modern one through the SDK's
 * `subscriptions/listen` handling.
 *
 * `closed` settles when the transport closes, for whatever reason: the SDK
 * closes it on stdin's end (passed on once every request read before it is
 * answered, or after `endGraceMs`) and on a line over STDIO_MAX_MESSAGE_BYTES,
 * and then answers nothing more, so the caller must exit. For an overlong line
 * the client is first sent a JSON-RPC error (id null: the id is in the part
 * that was never parsed).
 */
export function serveStdio(bridge: Bridge, identity: ServerIdentity, onerror: (error: Error) => void, endGraceMs = 0) {
  const legacyServers = new Set<Server>();
  const factory = createServerFactory(
    bridge,
    identity,
    (era) => era === 'legacy',
    (server, era) => {
      if (era !== 'legacy') return;
      legacyServers.add(server);
      server.onclose = () => legacyServers.delete(server);
    },
  );
  // stdin's end reaches the transport only after the requests read before it are answered (bounded by endGraceMs).
  const stdin = holdStdinEnd(process.stdin, endGraceMs);
  const transport = new StdioServerTransport(stdin.input, process.stdout, { maxBufferSize: STDIO_MAX_MESSAGE_BYTES });
  let overflow: Error | undefined;
  const handle = sdkServeStdio(factory, {
    legacy: 'serve',
    transport,
    onerror: (error) => {
      if (/exceeded maximum size/i.test(error.message)) overflow = error;
      onerror(error);
    },
  });
  stdin.track(transport);
  // serveStdio installed its own close hook on the transport; ours runs after it.
  const closed = new Promise<StdioEnd>((resolve) => {
    const sdkOnClose = transport.onclose;
    transport.onclose = () => {
      sdkOnClose?.();
      if (!overflow) return resolve({});
      const message = `Message too large: a line over ${STDIO_MAX_MESSAGE_BYTES / 1048576} MiB was received; the bridge closes the connection.`;
      process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message } })}\n`);
      resolve({ failure: message });
    };
  });
  const unsubscribe = bridge.onCatalogChange(() => {
    for (const server of legacyServers) server.sendToolListChanged().catch((error: unknown) => onerror(error instanceof Error ? error : new Error(String(error))));
  });
  return {
    closed,
    close: async () => {
      unsubscribe();
      await handle.close();
    },
  };
}
