/**
 * The one adapter between the bridge and the MCP TypeScript SDK (v2 line).
 * Nothing else in src/ imports `@modelcontextprotocol/*` at run time
 * (pinned by test/architecture/layering.test.ts), so an SDK upgrade touches this file only.
 *
 * The SDK owns JSON-RPC framing, era classification (2026-07-28 `_meta`
 * envelope vs 2025-era `initialize`, `classifyInboundRequest`, which the HTTP
 * edge calls too), the validation ladder and its error answers, and the 2026
 * encode (resultType, serverInfo). The bridge owns version resolution and the
 * per-revision projection (the SDK does not strip fields for older legacy
 * revisions), and hands every handler the InboundRequest its edge built —
 * the SDK sees no header of ours and no `authInfo` round trip.
 */
import {
  LATEST_PROTOCOL_VERSION,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  SUPPORTED_PROTOCOL_VERSIONS,
  Server,
  CLIENT_CAPABILITIES_META_KEY,
  UrlElicitationRequiredError,
  classifyInboundRequest,
  createMcpHandler,
  inputRequired,
  isSpecType,
  isJsonContentType,
  SERVER_INFO_META_KEY,
  type InboundClassificationOutcome,
  type JSONRPCRequest,
  type McpRequestContext,
  type Result,
  type ServerContext,
  type StandardSchemaV1,
} from '@modelcontextprotocol/server';
import { serveStdio as sdkServeStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { effectiveRevision, HEADERLESS_LEGACY_REVISION, isMcpRevision, newestRevision, profileFor, type McpRevision } from '../../core/mcp-versions.js';
import type { Bridge, Reply, ResumeState } from '../bridge/bridge.js';
import { JSONRPC_PARSE_ERROR, JSONRPC_URL_ELICITATION_REQUIRED, type McpErrorReply } from '../../core/mcp-wire.js';
import { createSealedStateCodec } from './request-state.js';
import { holdStdinEnd } from './stdio-end.js';
import { sendThrough, StdoutWriter, type BackedUpListener } from './stdio-out.js';
import { followTasksOverStdio } from './stdio-task-listen.js';
import { answerMalformedLines, type MalformedLine } from './stdio-malformed.js';
import type { CallCancellations } from './cancellations.js';
import { inboundMessages, type InboundRequest } from './inbound.js';
import { callTool, listTools, type TaskCreated } from './tool-requests.js';
import { TASK_METHODS, taskCapabilities, taskMethod, watchTaskStatus } from './task-handlers.js';
import { coreCreateTaskResult, extensionCreateTaskResult } from './task-wire.js';
import { declaresTasksExtension, declaresUrlElicitation } from './mcp-sdk-facts.js';

// For the HTTP edge, which classifies with the SDK's own classifier what it does not classify itself.
export { classifyInboundRequest, isJsonContentType, SERVER_INFO_META_KEY, type InboundClassificationOutcome };
// The SDK's facts the edge holds as literals (mcp-sdk-facts.ts, held to the SDK by mcp-server-sdk.test.ts).
export { declaresTasksExtension, declaresUrlElicitation, isSupportedLegacyRevision } from './mcp-sdk-facts.js';

export interface ServerIdentity {
  name: string;
  version: string;
  instructions?: string;
  /** 32 bytes: seals (AES-256-GCM) the `requestState` of 2026-07-28 input_required rounds. Share it between replicas. */
  stateKey: Uint8Array;
}

/**
 * A stdio request as an InboundRequest: the envelope's claim, else what this
 * connection negotiated in `initialize`, else 2025-03-26 (the transport spec's
 * default for a request that names no revision).
 */
function stdioInbound(server: Server, ctx: ServerContext, era: 'legacy' | 'modern', request: { method: string; params?: unknown }): InboundRequest {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const claimed = envelope?.[PROTOCOL_VERSION_META_KEY];
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- the documented way to read a 2025-era session's version
  const negotiated = server.getNegotiatedProtocolVersion();
  const revision: McpRevision =
    typeof claimed === 'string'
      ? effectiveRevision(claimed)
      : era === 'modern'
        ? newestRevision()
        : negotiated
          ? effectiveRevision(negotiated)
          : HEADERLESS_LEGACY_REVISION;
  return {
    transport: 'stdio',
    era,
    revision,
    urlElicitation: declaresUrlElicitation(envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? server.getClientCapabilities()),
    ...(era === 'modern' && declaresTasksExtension(envelope?.[CLIENT_CAPABILITIES_META_KEY]) ? { tasksExtension: true } : {}),
    signal: ctx.mcpReq.signal,
    messages: inboundMessages({ id: ctx.mcpReq.id, method: request.method, params: request.params }, undefined),
  };
}

/** A tools/call handler's CreateTaskResult, marked for BridgeServer (the mark is a symbol: never serialised). */
const CREATED_TASK = Symbol('mcp-oxp-bridge created task');
type MarkedTaskResult = Record<string, unknown> & { [CREATED_TASK]: true };

/**
 * The SDK's low-level Server, with one extension through its documented subclass hook (`_wrapHandler`): the SDK has
 * no tasks runtime (2.4.0), and its tools/call wrapper validates every result as a CallToolResult, refusing a
 * 2025-11-25 `CreateTaskResult` and padding a 2026-07-28 one with `content: []`. A result the bridge's handler marks
 * as a created task is passed through unchanged (the request was validated by the SDK as usual). And `initialize`
 * answers carry the core `tasks` capability only to a client that negotiated a revision with core tasks (2025-11-25).
 */
class BridgeServer extends Server {
  protected override _wrapHandler(
    method: string,
    handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>,
  ): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    if (method === 'initialize') {
      const wrapped = super._wrapHandler(method, handler);
      return async (request, ctx) => withoutForeignTaskCapability(await wrapped(request, ctx));
    }
    if (method !== 'tools/call') return super._wrapHandler(method, handler);
    const created = new WeakMap<object, Result>();
    const wrapped = super._wrapHandler(method, async (request, ctx) => {
      const result = await handler(request, ctx);
      if (!(CREATED_TASK in result)) return result;
      created.set(request, result);
      return { content: [] };
    });
    return async (request, ctx) => {
      const result = await wrapped(request, ctx);
      const task = created.get(request);
      return task ?? result;
    };
  }
}

/** The core `tasks` capability is for revisions with core tasks only (2025-11-25): an `initialize` answered with another drops it. */
function withoutForeignTaskCapability(result: Result): Result {
  const answered = result as { protocolVersion?: unknown; capabilities?: Record<string, unknown> };
  const version = typeof answered.protocolVersion === 'string' ? effectiveRevision(answered.protocolVersion) : undefined;
  if ((version !== undefined && profileFor(version).tasks === 'core') || answered.capabilities?.tasks === undefined) return result;
  const { tasks: _tasks, ...capabilities } = answered.capabilities;
  return { ...result, capabilities };
}

/** Params of the task methods as the SDK's explicit-schema dispatch takes them (Standard Schema): any object; the handlers check the fields. */
const TASK_PARAMS: StandardSchemaV1<Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'mcp-oxp-bridge',
    validate: (value) =>
      value !== null && typeof value === 'object' && !Array.isArray(value)
        ? { value: value as Record<string, unknown> }
        : { issues: [{ message: 'params must be an object' }] },
  },
};

function urlElicitationRequired(error: McpErrorReply): UrlElicitationRequiredError {
  const elicitations = ((error.data as { elicitations?: unknown[] } | undefined)?.elicitations ?? []) as ConstructorParameters<
    typeof UrlElicitationRequiredError
  >[0];
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
 * capability is only advertised where the bridge delivers it. `inboundOf`
 * gives the HTTP edge's value for a request (undefined on stdio).
 */
export function createServerFactory(
  bridge: Bridge,
  identity: ServerIdentity,
  listChanged: (era: 'legacy' | 'modern') => boolean,
  options: {
    inboundOf?: (factoryCtx: McpRequestContext) => InboundRequest | undefined;
    onServer?: (server: Server, era: 'legacy' | 'modern') => void;
    cancellations?: CallCancellations;
    /** A tools/call of this server became a task (stdio: its status notifications follow). */
    onTaskCreated?: (server: Server, record: TaskCreated['task']) => void;
  } = {},
) {
  // One codec for every instance: a state minted by one request (or replica with the same key) opens on another.
  const stateCodec = createSealedStateCodec<ResumeState>(identity.stateKey, 900);
  return (factoryCtx: McpRequestContext): Server => {
    const httpInbound = options.inboundOf?.(factoryCtx);
    // Bound to the authenticated principal: a state cannot be replayed by someone else.
    const subject = httpInbound?.principal?.subject;
    const server = new BridgeServer(
      { name: identity.name, version: identity.version },
      {
        // `logging` lets clients call logging/setLevel; the bridge itself logs to stderr.
        capabilities: { tools: { listChanged: listChanged(factoryCtx.era) }, logging: {}, ...(bridge.tasks?.enabled ? taskCapabilities(factoryCtx.era) : {}) },
        requestState: { verify: async (state: string) => stateCodec.open(state, subject) },
        ...(identity.instructions ? { instructions: identity.instructions } : {}),
      },
    );
    const inboundFor = (ctx: ServerContext, request: { method: string; params?: unknown }) => httpInbound ?? stdioInbound(server, ctx, factoryCtx.era, request);
    server.setRequestHandler(
      'tools/list',
      async (request, ctx) => unwrap(await listTools(bridge, inboundFor(ctx, request), ctx.mcpReq.id, request.params?.cursor)) as never,
    );
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const state = ctx.mcpReq.requestState<ResumeState>();
      const resume =
        state && typeof state === 'object'
          ? { state, accepted: (ctx.mcpReq.inputResponses?.[state.key] as { action?: unknown } | undefined)?.action === 'accept' }
          : undefined;
      const hooks = {
        signal: ctx.mcpReq.signal,
        notifyProgress: (params: { progressToken: string | number; progress: number; message?: string }) =>
          ctx.mcpReq.notify({ method: 'notifications/progress', params }),
        ...(resume ? { resume } : {}),
      };
      const inbound = inboundFor(ctx, request);
      const reply = await callTool(bridge, inbound, ctx.mcpReq.id, request.params, hooks, options.cancellations);
      if ('task' in reply)
        return createdTask(reply, inbound, request.params.name, options.onTaskCreated && ((r) => options.onTaskCreated!(server, r))) as never;
      if ('inputRequired' in reply) {
        const { key, message, url, resume: next } = reply.inputRequired;
        return inputRequired({ inputRequests: { [key]: inputRequired.elicitUrl({ message, url }) }, requestState: stateCodec.mint(next, subject) });
      }
      if ('error' in reply && reply.error.code === JSONRPC_URL_ELICITATION_REQUIRED) throw urlElicitationRequired(reply.error);
      return unwrap(reply) as never;
    });
    if (bridge.tasks?.enabled) registerTaskMethods(server, bridge, inboundFor);
    options.onServer?.(server, factoryCtx.era);
    return server;
  };
}

/** The tools/call answer for a call that became a task: the CreateTaskResult of the request's revision, marked for BridgeServer. */
function createdTask(
  created: TaskCreated,
  inbound: InboundRequest,
  tool: string,
  onCreated: ((record: TaskCreated['task']) => void) | undefined,
): MarkedTaskResult {
  onCreated?.(created.task);
  const result = profileFor(inbound.revision).tasks === 'extension' ? extensionCreateTaskResult(created.task) : coreCreateTaskResult(created.task, tool);
  return Object.assign(result, { [CREATED_TASK]: true as const });
}

/** tasks/get, tasks/result, tasks/list, tasks/cancel, tasks/update through the SDK's explicit-schema dispatch (task-handlers.ts answers). */
function registerTaskMethods(
  server: Server,
  bridge: Bridge,
  inboundFor: (ctx: ServerContext, request: { method: string; params?: unknown }) => InboundRequest,
): void {
  for (const method of TASK_METHODS) {
    server.setRequestHandler(method, { params: TASK_PARAMS }, async (params, ctx) => {
      const inbound = inboundFor(ctx, { method, params });
      const notify = (notification: { method: string; params: Record<string, unknown> }) => ctx.mcpReq.notify(notification);
      // At 2026-07-28 the SDK lifts `inputResponses` out of params (an MRTR member) into the request context.
      const lifted =
        ctx.mcpReq.inputResponses !== undefined && params.inputResponses === undefined ? { ...params, inputResponses: ctx.mcpReq.inputResponses } : params;
      // 2025-11-25 over stdio: a task's input requests can go to the client as elicitation requests.
      const elicit =
        inbound.transport === 'stdio' && inbound.era === 'legacy'
          ? // eslint-disable-next-line @typescript-eslint/no-deprecated -- the 2025-era request is the only way a 2025-11-25 task can ask (legacy path only, as the deprecation says)
            (elicitation: Record<string, unknown>) => ctx.mcpReq.elicitInput(elicitation as never)
          : undefined;
      return unwrap(await taskMethod(bridge, method, lifted, inbound, ctx.mcpReq.signal, notify, elicit));
    });
  }
}

export interface McpHttpOptions {
  maxRequestBodyBytes: number;
  keepAliveMs: number;
  onerror: (error: Error) => void;
  cancellations?: CallCancellations;
}

/**
 * The SDK's HTTP endpoint (`createMcpHandler`, both eras, legacy statelessly)
 * for the requests the face does not answer itself. The caller has read and
 * parsed the body (`parsedBody`: the SDK reads nothing) and built the
 * InboundRequest, which reaches the handlers keyed by the web `Request`.
 */
export function createSdkEndpoint(bridge: Bridge, identity: ServerIdentity, options: McpHttpOptions) {
  const inbounds = new WeakMap<Request, InboundRequest>();
  // Modern clients receive list changes on `subscriptions/listen` streams;
  // stateless legacy HTTP has no stream to carry them (GET answers 405).
  const factory = createServerFactory(bridge, identity, (era) => era === 'modern', {
    inboundOf: (ctx) => (ctx.requestInfo ? inbounds.get(ctx.requestInfo) : undefined),
    ...(options.cancellations ? { cancellations: options.cancellations } : {}),
  });
  const handler = createMcpHandler(factory, {
    legacy: 'stateless',
    responseMode: 'auto',
    keepAliveMs: options.keepAliveMs,
    maxRequestBodySize: options.maxRequestBodyBytes,
    onerror: options.onerror,
  });
  return {
    fetch: (request: Request, inbound: InboundRequest, parsedBody?: unknown): Promise<Response> => {
      inbounds.set(request, inbound);
      return handler.fetch(request, parsedBody !== undefined ? { parsedBody } : undefined);
    },
    close: () => handler.close(),
    notifyToolsChanged: () => handler.notify.toolsChanged(),
  };
}

export type SdkEndpoint = ReturnType<typeof createSdkEndpoint>;

/** The stdio connection's server factory, and what it keeps: its 2025-era servers and the task status watches of their clients. */
function stdioServerFactory(bridge: Bridge, identity: ServerIdentity, onerror: (error: Error) => void) {
  const legacyServers = new Set<Server>();
  const stopWatching = new Set<() => void>();
  const factory = createServerFactory(bridge, identity, (era) => era === 'legacy', {
    onServer: (server, era) => {
      if (era !== 'legacy') return;
      legacyServers.add(server);
      server.onclose = () => legacyServers.delete(server);
    },
    // 2025-11-25 over stdio: the client is listening, so each change of its task's status is sent as it happens.
    onTaskCreated: (server, record) => {
      if (legacyServers.has(server)) notifyTaskStatus(bridge, server, record, stopWatching, onerror);
    },
  });
  return { factory, legacyServers, stopWatching };
}

/** Sends a stdio client `notifications/tasks/status` for each change of its task until the task ends (2025-11-25). */
function notifyTaskStatus(bridge: Bridge, server: Server, record: TaskCreated['task'], watching: Set<() => void>, onerror: (error: Error) => void): void {
  const store = bridge.tasks?.lifecycle.store;
  if (!store) return;
  const send = (params: Record<string, unknown>) =>
    server
      .notification({ method: 'notifications/tasks/status', params })
      .catch((error: unknown) => onerror(error instanceof Error ? error : new Error(String(error))));
  const stop = watchTaskStatus(
    store,
    record,
    (params) => void send(params),
    () => watching.delete(stop),
  );
  watching.add(stop);
}

/**
 * The revision the SDK's `initialize` handler answers with for a requested
 * one: the same rule as the SDK (echo a supported version, else the latest).
 */
export function negotiatedLegacyRevision(requested: unknown): string {
  return typeof requested === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
}

/**
 * Whether the SDK's `initialize` handler answers this message with a result:
 * exactly when it passes the SDK's own InitializeRequest schema (the handler
 * itself cannot fail). The edge mints a session id from this, before the
 * answer exists, instead of reading the answer back.
 */
export function initializeSucceeds(message: unknown): boolean {
  return isSpecType.InitializeRequest(message);
}

/** The longest stdio message (one line) the bridge reads; a longer one ends the connection. */
export const STDIO_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

export interface StdioEnd {
  /** Why the transport closed when it was not stdin's end of file (e.g. a message over the bound). */
  failure?: string;
}

/** What a stdio request's `_meta` envelope says, read with the SDK's keys (stdio-task-listen.ts). */
function envelopeFacts(meta: Record<string, unknown> | undefined): { modern: boolean; tasksExtension: boolean } {
  const claimed = meta?.[PROTOCOL_VERSION_META_KEY];
  return {
    modern: isMcpRevision(claimed) && profileFor(claimed).era === 'modern',
    tasksExtension: declaresTasksExtension(meta?.[CLIENT_CAPABILITIES_META_KEY]),
  };
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
export function serveStdio(
  bridge: Bridge,
  identity: ServerIdentity,
  onerror: (error: Error) => void,
  endGraceMs = 0,
  onMalformed: (line: MalformedLine) => void = () => undefined,
  onBackedUp: BackedUpListener = () => undefined,
) {
  const { factory, legacyServers, stopWatching } = stdioServerFactory(bridge, identity, onerror);
  // stdin's end reaches the transport only after the requests read before it are answered (bounded by endGraceMs).
  const stdin = holdStdinEnd(process.stdin, endGraceMs);
  // One writer for everything on stdout: while the host does not read it, stdin is not read either.
  const out = new StdoutWriter(process.stdout, (backedUp, bytes) => {
    stdin.pause(backedUp);
    onBackedUp(backedUp, bytes);
  });
  const transport = new StdioServerTransport(stdin.input, process.stdout, { maxBufferSize: STDIO_MAX_MESSAGE_BYTES });
  let transportClosed = false;
  sendThrough(transport, out, () => transportClosed);
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
  // 2026-07-28 task status notifications on subscriptions/listen, which the SDK's listen router does not know.
  followTasksOverStdio(transport, () => bridge.tasks, envelopeFacts);
  // A line that is not a JSON-RPC message: the transport skips it in silence; JSON-RPC owes it an error.
  const stopAnswering = answerMalformedLines(stdin.input, out, STDIO_MAX_MESSAGE_BYTES, onMalformed);
  // serveStdio installed its own close hook on the transport; ours runs after it.
  const closed = new Promise<StdioEnd>((resolve) => {
    const sdkOnClose = transport.onclose;
    transport.onclose = () => {
      transportClosed = true;
      stdin.transportClosed();
      stopAnswering();
      sdkOnClose?.();
      if (!overflow) return resolve({});
      const message = `Message too large: a line over ${STDIO_MAX_MESSAGE_BYTES / 1048576} MiB was received; the bridge closes the connection.`;
      void out.write(`${JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: JSONRPC_PARSE_ERROR, message } })}\n`).catch(() => undefined);
      resolve({ failure: message });
    };
  });
  const stopNotifying = notifyToolChanges(bridge, legacyServers, onerror);
  return {
    closed,
    /** Reads stdin no more; resolves once what was read is answered, or after `deadlineMs`, with the requests left. */
    drain: (deadlineMs: number) => stdin.stop(deadlineMs),
    close: async () => {
      stopNotifying();
      for (const stop of stopWatching) stop();
      await handle.close();
    },
  };
}

/** A legacy stdio client is told when the catalog changes, or a policy reload changes what it (auth.anonymous) sees. */
function notifyToolChanges(bridge: Bridge, legacyServers: Iterable<Server>, onerror: (error: Error) => void): () => void {
  const toolsChanged = () => {
    for (const server of legacyServers)
      server.sendToolListChanged().catch((error: unknown) => onerror(error instanceof Error ? error : new Error(String(error))));
  };
  const unsubscribe = bridge.onCatalogChange(toolsChanged);
  const stopWatchingView = bridge.onViewChange(toolsChanged, undefined);
  return () => {
    unsubscribe();
    stopWatchingView();
  };
}
