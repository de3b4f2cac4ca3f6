/**
 * Real MCP clients (SDK v2 `@modelcontextprotocol/client` and SDK v1
 * `@modelcontextprotocol/sdk`) pinned to one protocol revision each, with
 * every JSON-RPC message they exchange recorded at the transport seam.
 *
 * How a client is made to speak one revision:
 * - v2 legacy: `supportedProtocolVersions: [version]`: the `initialize`
 *   handshake offers exactly that revision and accepts only it back;
 * - v2 modern: `versionNegotiation: {mode: {pin: '2026-07-28'}}`;
 * - v1: the client always offers its LATEST, so the recording decorator
 *   rewrites the outgoing `initialize` `params.protocolVersion`; the bridge
 *   echoes any supported requested revision, and v1 accepts every legacy one.
 *
 * Recording: `send` and the `onmessage` slot are replaced on the transport
 * *instance* (the class stays the SDK's, so transport-specific client logic
 * still applies). Outgoing request ids are mapped to their method, so each
 * inbound response can be validated against the result definition of the
 * request it answers (`WireLog.assertValid`).
 */
import { Client as ClientV2, StreamableHTTPClientTransport as HttpTransportV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioTransportV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioTransportV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Readable } from 'node:stream';
import type { McpRevision } from '../../src/core/mcp-versions.js';
import { assertValidServerMessage } from './mcp-schema.js';

export type ClientKind = 'v2-legacy' | 'v2-modern' | 'v1';

export interface ClientSpec {
  kind: ClientKind;
  revision: McpRevision;
  /** e.g. "v2-legacy@2025-03-26" */
  label: string;
}

export const LEGACY_REVISIONS: McpRevision[] = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];

export function spec(kind: ClientKind, revision: McpRevision): ClientSpec {
  return { kind, revision, label: `${kind}@${revision}` };
}

/** Every client kind at every revision it can speak. */
export const ALL_CLIENT_SPECS: ClientSpec[] = [
  ...LEGACY_REVISIONS.map((v) => spec('v2-legacy', v)),
  spec('v2-modern', '2026-07-28'),
  ...LEGACY_REVISIONS.map((v) => spec('v1', v)),
];

export type JsonRpcMessage = Record<string, unknown>;

export interface WireEntry {
  direction: 'out' | 'in';
  message: JsonRpcMessage;
  /** The request method (outbound requests/notifications, inbound responses by id, inbound notifications/requests). */
  method?: string;
}

const idKey = (id: unknown): string => `${typeof id}:${String(id)}`;

/** The JSON-RPC traffic of one client connection, in order. */
export class WireLog {
  readonly entries: WireEntry[] = [];
  private readonly methodById = new Map<string, string>();
  private validatedUpTo = 0;
  private readonly waiters = new Set<(entry: WireEntry) => void>();

  outbound(message: JsonRpcMessage): void {
    const method = typeof message.method === 'string' ? message.method : undefined;
    if (method !== undefined && message.id !== undefined) this.methodById.set(idKey(message.id), method);
    this.entries.push(method !== undefined ? { direction: 'out', message, method } : { direction: 'out', message });
  }

  inbound(message: JsonRpcMessage): void {
    const method = typeof message.method === 'string' ? message.method : message.id !== undefined ? this.methodById.get(idKey(message.id)) : undefined;
    const entry: WireEntry = method !== undefined ? { direction: 'in', message, method } : { direction: 'in', message };
    this.entries.push(entry);
    for (const waiter of [...this.waiters]) waiter(entry);
  }

  /**
   * Resolves with the first inbound message of `method` received from now on;
   * rejects after `timeoutMs`.
   */
  next(method: string, timeoutMs: number): Promise<JsonRpcMessage> {
    return new Promise((resolve, reject) => {
      const waiter = (entry: WireEntry) => {
        if (entry.method !== method) return;
        clearTimeout(timer);
        this.waiters.delete(waiter);
        resolve(entry.message);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`no ${method} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  /** Messages the client received, optionally only responses to / notifications of `method`. */
  received(method?: string): JsonRpcMessage[] {
    return this.entries.filter((e) => e.direction === 'in' && (method === undefined || e.method === method)).map((e) => e.message);
  }

  sent(method?: string): JsonRpcMessage[] {
    return this.entries.filter((e) => e.direction === 'out' && (method === undefined || e.method === method)).map((e) => e.message);
  }

  /** The last response the client received to a `method` request. */
  lastResponse(method: string): JsonRpcMessage {
    const all = this.received(method).filter((m) => 'result' in m || 'error' in m);
    const last = all[all.length - 1];
    if (!last) throw new Error(`no ${method} response was received`);
    return last;
  }

  /**
   * Validates every inbound message not validated yet against `version`'s
   * official schema (closed mode for results); throws listing each failure.
   * Returns how many messages were checked.
   */
  assertValid(revision: McpRevision): number {
    const failures: string[] = [];
    const from = this.validatedUpTo;
    for (let i = from; i < this.entries.length; i++) {
      const entry = this.entries[i]!;
      if (entry.direction !== 'in') continue;
      try {
        assertValidServerMessage(revision, entry.message, entry.method);
      } catch (error) {
        failures.push(`#${i} (${entry.method ?? '?'}): ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    this.validatedUpTo = this.entries.length;
    if (failures.length > 0) throw new Error(`${failures.length} message(s) invalid for ${revision}:\n${failures.join('\n')}`);
    return this.entries.slice(from).filter((e) => e.direction === 'in').length;
  }
}

interface TransportLike {
  send(message: JsonRpcMessage, options?: unknown): Promise<void>;
  onmessage?: ((message: JsonRpcMessage, extra?: unknown) => void) | undefined;
  setProtocolVersion?: ((version: string) => void) | undefined;
}

export interface RecordOptions {
  /** Rewrite the outgoing `initialize` request's `params.protocolVersion`. */
  initializeVersion?: string;
  /** Never let the client set the `MCP-Protocol-Version` header (a 2024-11-05-era HTTP client). */
  withholdProtocolVersionHeader?: boolean;
}

/** Installs the recording decorator on a transport instance (before `connect`). */
export function recordTransport<T extends object>(transport: T, log: WireLog, options: RecordOptions = {}): T {
  const t = transport as unknown as TransportLike;
  const send = t.send.bind(t);
  t.send = (message, sendOptions) => {
    let out = message;
    if (options.initializeVersion !== undefined && out.method === 'initialize') {
      out = { ...out, params: { ...(out.params as Record<string, unknown>), protocolVersion: options.initializeVersion } };
    }
    log.outbound(out);
    return send(out, sendOptions);
  };
  let handler: TransportLike['onmessage'];
  Object.defineProperty(t, 'onmessage', {
    configurable: true,
    enumerable: true,
    get: () => handler,
    set: (fn: TransportLike['onmessage']) => {
      handler =
        fn === undefined
          ? undefined
          : (message, extra) => {
              log.inbound(message);
              fn(message, extra);
            };
    },
  });
  if (options.withholdProtocolVersionHeader) t.setProtocolVersion = () => undefined;
  return transport;
}

// ----------------------------------------------------------------- sessions

export interface ContentBlockLike {
  type: string;
  text?: string;
  [key: string]: unknown;
}

export interface CallResultLike {
  content: ContentBlockLike[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ToolLike {
  name: string;
  [key: string]: unknown;
}

export interface ListResultLike {
  tools: ToolLike[];
  nextCursor?: string;
  [key: string]: unknown;
}

/** A connected client of any kind, behind one small interface. */
export interface McpSession {
  spec: ClientSpec;
  log: WireLog;
  /** What the handshake settled on (v2: `getNegotiatedProtocolVersion()`, v1: the initialize result). */
  negotiatedRevision: string | undefined;
  /** Errors the client or its transport reported out of band (e.g. a non-JSON stdout line). */
  errors: Error[];
  /**
   * tools/list through the client API. v2 without a cursor walks every page
   * (one wire request per page); v1 returns one page.
   */
  listTools(params?: { cursor?: string }): Promise<ListResultLike>;
  callTool(name: string, args?: Record<string, unknown>, meta?: Record<string, unknown>): Promise<CallResultLike>;
  close(): Promise<void>;
}

type AnyClient = ClientV2 | ClientV1;

function makeClient(s: ClientSpec): AnyClient {
  const info = { name: `it-${s.label}`, version: '1.0.0' };
  if (s.kind === 'v1') return new ClientV1(info, { capabilities: {} });
  if (s.kind === 'v2-modern') return new ClientV2(info, { versionNegotiation: { mode: { pin: s.revision } } });
  return new ClientV2(info, { versionNegotiation: { mode: 'legacy' }, supportedProtocolVersions: [s.revision] });
}

async function openSession(s: ClientSpec, transport: object, log: WireLog, closeExtra?: () => Promise<void>): Promise<McpSession> {
  const client = makeClient(s);
  const errors: Error[] = [];
  client.onerror = (error: Error) => {
    errors.push(error);
  };
  // Both SDKs accept the other's transport structurally; the cast only bridges their nominal types.
  await (client as ClientV2).connect(transport as HttpTransportV2);
  let negotiatedRevision: string | undefined;
  if (client instanceof ClientV2) negotiatedRevision = client.getNegotiatedProtocolVersion();
  else {
    const init = log.received('initialize')[0];
    const result = init?.result as { protocolVersion?: string } | undefined;
    negotiatedRevision = result?.protocolVersion;
  }
  return {
    spec: s,
    log,
    negotiatedRevision,
    errors,
    listTools: async (params) => await client.listTools(params),
    callTool: async (name, args, meta) => {
      const params = { name, ...(args !== undefined ? { arguments: args } : {}), ...(meta !== undefined ? { _meta: meta } : {}) };
      return (await client.callTool(params)) as unknown as CallResultLike;
    },
    close: async () => {
      await client.close();
      await closeExtra?.();
    },
  };
}

export interface HttpSessionOptions {
  withholdProtocolVersionHeader?: boolean;
  /** Observes every HTTP exchange the transport makes. */
  fetch?: (url: string | URL, init?: RequestInit) => Promise<Response>;
}

/** A client of `s.kind` speaking `s.revision` to `url` over Streamable HTTP. */
export async function connectHttp(s: ClientSpec, url: string, options: HttpSessionOptions = {}): Promise<McpSession> {
  const log = new WireLog();
  const transportOptions = options.fetch ? { fetch: options.fetch } : {};
  const transport = s.kind === 'v1' ? new HttpTransportV1(new URL(url), transportOptions) : new HttpTransportV2(new URL(url), transportOptions);
  recordTransport(transport, log, {
    ...(s.kind === 'v1' ? { initializeVersion: s.revision } : {}),
    ...(options.withholdProtocolVersionHeader ? { withholdProtocolVersionHeader: true } : {}),
  });
  return openSession(s, transport, log);
}

export interface StdioServerCommand {
  command: string;
  args: string[];
  cwd: string;
  env?: Record<string, string>;
}

/**
 * The SDK's stdio transport, subclassed so a probing (modern) connect runs
 * `server/discover` on this very connection, where it is recorded, instead of
 * on a disposable sibling process.
 */
class InPlaceStdioTransportV2 extends StdioTransportV2 {}

export interface StdioSession extends McpSession {
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
}

/** A client of `s.kind` speaking `s.revision` to a server it spawns over stdio. */
export async function connectStdio(s: ClientSpec, server: StdioServerCommand): Promise<StdioSession> {
  const log = new WireLog();
  const params = { command: server.command, args: server.args, cwd: server.cwd, stderr: 'pipe' as const, ...(server.env ? { env: server.env } : {}) };
  const transport = s.kind === 'v1' ? new StdioTransportV1(params) : new InPlaceStdioTransportV2(params);
  recordTransport(transport, log, s.kind === 'v1' ? { initializeVersion: s.revision } : {});
  let stderrText = '';
  const stderr = transport.stderr as Readable | null;
  stderr?.setEncoding('utf8');
  stderr?.on('data', (chunk: string) => {
    stderrText += chunk;
  });
  const session = await openSession(s, transport, log);
  return { ...session, stderr: () => stderrText };
}

/** The JSON-RPC error code of a rejected client call, else undefined. */
export function errorCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}
