/**
 * The one adapter between the bridge and the MCP client SDK (v2 line,
 * `@modelcontextprotocol/client`, pinned). Nothing else in src/ imports it at
 * run time (pinned by test/architecture/layering.test.ts).
 *
 * One `connectMcp` call = one connection to one MCP server, over stdio (a
 * child process), Streamable HTTP or legacy HTTP+SSE, negotiated in `auto`
 * mode (2026-07-28 via `server/discover` first, the 2025 `initialize`
 * otherwise). It answers in plain values (core's McpCallOutcome), never SDK
 * errors: translation to OXP is core/mcp-to-oxp.ts's job, reconnecting is
 * the caller's.
 */
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import {
  Client,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  TRACEPARENT_META_KEY,
  type StandardSchemaV1,
  type Tool,
  type Transport,
} from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { isPlainObject, type JsonObject } from '../../core/json.js';
import type { McpCallOutcome } from '../../core/mcp-to-oxp.js';
import { readTask, type McpTask } from '../../core/mcp-task-polling.js';
import type { McpCallToolResult, McpTool } from '../../core/mcp-wire.js';
import { untilAborted } from '../../platform/shared/until-aborted.js';
import { describe } from './describe-error.js';
import { McpProcessExited, StdioExitWatch } from './stdio-exit.js';
import { callAsking, callTask, type CallOptions, type InFlightCall } from './connection-calls.js';
import type { TaskWire } from './task-call.js';

/** The `_meta` key of W3C trace context in an MCP request (`traceparent`). */
export { TRACEPARENT_META_KEY };

import type { McpTarget } from '../../config/oxp-server-settings.js';

export type { McpTarget };

export interface McpConnectOptions {
  clientName: string;
  clientVersion: string;
  connectTimeoutMs: number;
  /** The server's tool list changed (`notifications/tools/list_changed`, either era); the fresh list, unchecked (see listTools). */
  onToolsChanged: (tools: unknown[]) => void;
  /**
   * The connection ended without `close()` being called (child exited, stream closed). Called once. `stderrTail`: the
   * end of a stdio child's stderr when the child exited, for the operator's log only (stdio-exit.ts).
   */
  onClosed: (reason: string, stderrTail?: string) => void;
  /** A line the stdio child wrote to its stderr. */
  onStderr?: (line: string) => void;
  /** Out-of-band errors the SDK reports (logging only). */
  onError?: (error: Error) => void;
  /** Aborting gives up a connection still being opened, closing what was started (a stdio child is stopped). */
  signal?: AbortSignal;
}

export interface McpConnection {
  readonly era: 'legacy' | 'modern';
  readonly protocolVersion: string | undefined;
  readonly serverName: string | undefined;
  readonly serverVersion: string | undefined;
  /** `sse` when a URL upstream fell back to the legacy HTTP+SSE transport. */
  readonly transport: 'stdio' | 'streamable-http' | 'sse';
  /**
   * The server takes task-augmented `tools/call` (2025-11-25: `capabilities.tasks.requests.tools.call`). A
   * 2026-07-28 server's tasks extension is not declared by this client (see docs/oxp-server.md, Tasks), so such a
   * server never answers it with a task.
   */
  readonly toolTasks: boolean;
  /**
   * Every page of `tools/list`, each tool as the server sent it: unchecked,
   * so one malformed tool cannot fail the whole list (core/mcp-tools.ts
   * screens them one by one).
   */
  listTools(timeoutMs: number): Promise<unknown[]>;
  /** A plain `tools/call`, or with `asTask` one run as a task (task-call.ts); `onTask` is told the task's id. */
  callTool(tool: McpTool, args: JsonObject, options: CallOptions): Promise<McpCallOutcome>;
  close(): Promise<void>;
}

/**
 * The client declares URL-mode elicitation only: a 2025-11-25 server may
 * then answer with `-32042`, a 2026-07-28 one with `input_required`; both
 * become OXP authorization challenges. Form-mode input cannot be carried.
 */
const CAPABILITIES = { elicitation: { url: {} } };

/**
 * tools/list results are read through this permissive schema rather than the
 * SDK's: the SDK validates the whole list at once, so one tool with a bad
 * inputSchema would reject every tool of the server (and with it the connection).
 */
const ANY_RESULT: StandardSchemaV1<unknown, Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'mcp-oxp-bridge',
    validate: (value) => (isPlainObject(value) ? { value } : { issues: [{ message: 'the result is not an object' }] }),
  },
};
/** Pages of one tools/list walk: a server whose cursors never end is cut off here. */
const MAX_LIST_PAGES = 100;

/** How long a failed or abandoned connect waits for the SDK to reap what it spawned (its own escalation: 2 s to exit after stdin ends, 2 s after SIGTERM, then SIGKILL). */
const CHILD_REAP_MS = 5_000;

export async function connectMcp(target: McpTarget, options: McpConnectOptions): Promise<McpConnection> {
  if (target.kind === 'stdio' || target.transport === 'streamable-http') return open(target, 'primary', options);
  if (target.transport === 'sse') return open(target, 'sse', options);
  try {
    return await open(target, 'primary', options);
  } catch (error) {
    // The backwards-compatibility rule of the Streamable HTTP spec: a 4xx to the first POST means an HTTP+SSE server.
    if (error instanceof SdkHttpError && error.status >= 400 && error.status < 500 && error.status !== 401 && error.status !== 403)
      return open(target, 'sse', options);
    throw error;
  }
}

/** Per task id, who listens to its status notifications (task-call.ts, while it waits). */
type TaskWatchers = Map<string, (task: McpTask) => void>;

/** Whether the connection is being closed on purpose (then its end is not reported) or its end was reported already. */
interface Lifecycle {
  closing: boolean;
  closedReported: boolean;
}

/** One connection: the client, its transport, the connect within one deadline, then the connection's face. */
async function open(target: McpTarget, flavour: 'primary' | 'sse', options: McpConnectOptions): Promise<McpConnection> {
  const life: Lifecycle = { closing: false, closedReported: false };
  const reportClosed = (reason: string, stderrTail?: string) => {
    if (life.closing || life.closedReported) return;
    life.closedReported = true;
    options.onClosed(reason, stderrTail);
  };
  const inFlight = new Set<InFlightCall>();
  const watchers: TaskWatchers = new Map();
  const client = createClient(options, inFlight, watchers);
  client.onerror = (error) => options.onError?.(error);
  const { transport, kind, exits } = chooseTransport(target, flavour, options);
  client.onclose = () => {
    // A stdio child that exited: its exit code, and the end of its stderr for the log.
    if (!exits?.hasExited) return reportClosed('the connection closed');
    void exits
      .exited()
      .then((ended) =>
        ended ? reportClosed(new McpProcessExited(ended.exit, '', 'running').message, ended.stderrTail) : reportClosed('the connection closed'),
      );
  };
  await connectWithDeadline(client, transport, options, life, exits);
  // 2026-07-28: list changes ride a `subscriptions/listen` stream; when it drops (the server restarted), so did the connection.
  void client.autoOpenedSubscription?.closed.then((how) => {
    if (how !== 'local') reportClosed(`the change subscription ended (${how})`);
  });
  const server = client.getServerVersion();
  const era = client.getProtocolEra() ?? 'legacy';
  const taskCapability = (client.getServerCapabilities() as { tasks?: { requests?: { tools?: { call?: unknown } } } } | undefined)?.tasks;
  const wire = taskWire(client, watchers);
  return {
    era,
    protocolVersion: client.getNegotiatedProtocolVersion(),
    serverName: server?.name,
    serverVersion: server?.version,
    transport: kind,
    toolTasks: era === 'legacy' && isPlainObject(taskCapability?.requests?.tools?.call),
    listTools: (timeoutMs) => listAllTools(client, timeoutMs),
    callTool: (tool, args, callOptions) =>
      callOptions.asTask ? callTask(wire, inFlight, tool, args, callOptions, outcomeOfError) : callTool(client, inFlight, tool, args, callOptions),
    close: async () => {
      life.closing = true;
      await client.close();
    },
  };
}

/** The SDK client with the bridge's capabilities, its own tool listing on list_changed, and URL elicitations declined. */
function createClient(options: McpConnectOptions, inFlight: ReadonlySet<InFlightCall>, watchers: TaskWatchers): Client {
  const client: Client = new Client(
    { name: options.clientName, version: options.clientVersion },
    {
      versionNegotiation: { mode: 'auto' },
      capabilities: CAPABILITIES,
      inputRequired: { autoFulfill: false },
      listChanged: {
        tools: {
          debounceMs: 100,
          // The SDK's own refresh would validate the whole list at once: the bridge lists itself.
          autoRefresh: false,
          onChanged: () => {
            listAllTools(client, options.connectTimeoutMs).then(options.onToolsChanged, (error: unknown) =>
              options.onError?.(error instanceof Error ? error : new Error(String(error))),
            );
          },
        },
      },
    },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    const params = request.params as Record<string, unknown>;
    const call = params.mode === 'url' ? callAsking(inFlight, params) : undefined;
    if (call) {
      const key = typeof params.elicitationId === 'string' ? params.elicitationId : `authorization_${Object.keys(call.urlElicitations).length + 1}`;
      call.urlElicitations[key] = { method: 'elicitation/create', params };
    }
    // Nobody can open the link (or fill a form) during this call: the OXP client is told to open it, and calls again.
    return { action: 'decline' };
  });
  client.setNotificationHandler('notifications/tasks/status', { params: ANY_RESULT }, (params) => {
    const task = readTask(params);
    if (typeof task !== 'string') watchers.get(task.taskId)?.(task);
  });
  return client;
}

/** Requests with the permissive result schema (task-call.ts checks what it reads), and status notifications per task. */
function taskWire(client: Client, watchers: TaskWatchers): TaskWire {
  return {
    request: (method, params, { signal, timeoutMs }) =>
      client.request({ method, params }, ANY_RESULT, { ...(signal ? { signal } : {}), timeout: timeoutMs, maxTotalTimeout: timeoutMs }),
    watch: (taskId, onTask) => {
      watchers.set(taskId, onTask);
      return () => watchers.delete(taskId);
    },
  };
}

/** Every page of `tools/list`, each tool unchecked (see McpConnection.listTools), at most MAX_LIST_PAGES pages. */
async function listAllTools(client: Client, timeoutMs: number): Promise<unknown[]> {
  const tools: unknown[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const result = await client.request({ method: 'tools/list', ...(cursor !== undefined ? { params: { cursor } } : {}) }, ANY_RESULT, { timeout: timeoutMs });
    if (!Array.isArray(result.tools)) throw new Error('tools/list result has no tools array');
    tools.push(...(result.tools as unknown[]));
    if (typeof result.nextCursor !== 'string' || result.nextCursor === cursor) return tools;
    cursor = result.nextCursor;
  }
  throw new Error(`tools/list did not end within ${MAX_LIST_PAGES} pages`);
}

/** A stdio child (its stderr read line by line), or the URL's Streamable HTTP or legacy HTTP+SSE transport. */
function chooseTransport(
  target: McpTarget,
  flavour: 'primary' | 'sse',
  options: McpConnectOptions,
): { transport: Transport; kind: McpConnection['transport']; exits?: StdioExitWatch } {
  if (target.kind === 'stdio') {
    const stdio = new StdioClientTransport({
      command: target.command,
      args: [...target.args],
      env: { ...getDefaultEnvironment(), ...target.env },
      stderr: 'pipe',
      ...(target.cwd ? { cwd: target.cwd } : {}),
    });
    const exits = new StdioExitWatch();
    const stderr = stdio.stderr as Readable | null;
    if (stderr) exits.readStderr(stderr);
    if (stderr && options.onStderr) createInterface({ input: stderr }).on('line', options.onStderr);
    // The SDK keeps the exit code to itself (its `close` handler drops it): the child it spawns is read once started,
    // on this instance only (the SDK's era probe clones the class, which stays the SDK's own). Without it, no code.
    const start = stdio.start.bind(stdio);
    stdio.start = () => {
      const started = start();
      exits.watch((stdio as unknown as { _process?: ChildProcess })._process);
      return started;
    };
    return { transport: stdio, kind: 'stdio', exits };
  }
  const requestInit = target.headers ? { requestInit: { headers: target.headers } } : {};
  if (flavour === 'sse') return { transport: new SSEClientTransport(new URL(target.url), requestInit), kind: 'sse' };
  return { transport: new StreamableHTTPClientTransport(new URL(target.url), requestInit), kind: 'streamable-http' };
}

/**
 * One deadline for the whole connection (the 'auto' probe, then initialize), not one per step; on failure or when
 * given up (`options.signal`), everything started is closed before this rejects.
 */
async function connectWithDeadline(client: Client, transport: Transport, options: McpConnectOptions, life: Lifecycle, exits?: StdioExitWatch): Promise<void> {
  let deadline: NodeJS.Timeout | undefined;
  const connecting = client.connect(transport, { timeout: options.connectTimeoutMs });
  try {
    const withDeadline = Promise.race([
      connecting,
      new Promise<never>((_, reject) => {
        deadline = setTimeout(
          () => reject(new Error(`no MCP answer within ${options.connectTimeoutMs} ms (connectTimeoutMs): is it an MCP server?`)),
          options.connectTimeoutMs,
        );
      }),
    ]);
    await untilAborted(withDeadline, options.signal, 'given up: the client is closing');
  } catch (error) {
    // Seen before anything here stops the child: it exited on its own.
    const exitedAtStart = exits?.hasExited ?? false;
    life.closing = true;
    await client.close().catch(() => undefined);
    // The client does not close a transport whose connect has not finished (a deadline passed, or given up), and
    // over stdio the SDK may be probing the era on a sibling child of its own: closing the transport ends the probe,
    // and the connect settles once that child is reaped (the SDK escalates to SIGKILL). Waited for, within bounds,
    // so that no child outlives a shutdown that follows.
    await transport.close().catch(() => undefined);
    await Promise.race([connecting.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, CHILD_REAP_MS).unref())]);
    const ended = exitedAtStart ? await exits!.exited() : undefined;
    throw ended ? new McpProcessExited(ended.exit, ended.stderrTail, 'start', { cause: error }) : error;
  } finally {
    clearTimeout(deadline);
  }
}

/** One `tools/call`: a plain result, an input request (2026 `input_required`, or a URL the server asked for during the call), or the failure as an outcome. */
async function callTool(
  client: Client,
  inFlight: Set<InFlightCall>,
  tool: McpTool,
  args: JsonObject,
  { signal, timeoutMs, meta }: { signal: AbortSignal; timeoutMs: number; meta?: JsonObject },
): Promise<McpCallOutcome> {
  const call: InFlightCall = { urlElicitations: {} };
  inFlight.add(call);
  try {
    const result = await client.callTool(
      { name: tool.name, arguments: args, ...(meta ? { _meta: meta } : {}) },
      {
        signal,
        timeout: timeoutMs,
        maxTotalTimeout: timeoutMs,
        allowInputRequired: true,
        // The bridge maps outputs itself (text-only answers, {result} wrappers): the SDK's output check would refuse some.
        toolDefinition: { ...tool, outputSchema: undefined } as unknown as Tool,
      },
    );
    const raw = result as unknown as Record<string, unknown>;
    if (raw.resultType === 'input_required') return { kind: 'input_required', inputRequests: isPlainObject(raw.inputRequests) ? raw.inputRequests : {} };
    // The server asked for a URL during this call: whatever it answered after the decline ("User declined…", an error), the OXP client must be sent to the URL.
    if (Object.keys(call.urlElicitations).length > 0) return { kind: 'input_required', inputRequests: call.urlElicitations };
    return { kind: 'result', result: result as unknown as McpCallToolResult };
  } catch (error) {
    return outcomeOfError(error);
  } finally {
    inFlight.delete(call);
  }
}

/** An SDK failure → McpCallOutcome. `retryable` only where the server provably did not run the call. */
function outcomeOfError(error: unknown): McpCallOutcome {
  if (error instanceof ProtocolError) return { kind: 'rpc_error', code: error.code, message: error.message, data: (error as { data?: unknown }).data };
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) return { kind: 'timeout' };
  const detail = describe(error);
  const retryable =
    (error instanceof SdkError && error.code === SdkErrorCode.NotConnected) ||
    // A lost legacy session (the server restarted): the request was refused, not run.
    (error instanceof SdkHttpError && error.status === 404) ||
    /ECONNREFUSED/.test(detail);
  return { kind: 'unreachable', detail, retryable };
}
