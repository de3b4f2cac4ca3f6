/**
 * What every listening HTTP server of this process (the MCP face and the
 * oxp-server face) bounds before any handler runs: how long a client may take
 * to send its headers and its body, how long a new connection may stay
 * silent, and how many connections may be open at once.
 *
 * Node's own timers do the header and body parts: `headersTimeout` and
 * `requestTimeout` measure from the first byte of a request until its headers,
 * resp. its whole body, have arrived (the parser drops a request from the
 * checked list once its body is complete), so a long tool call whose answer
 * streams for minutes afterwards is never cut. A connection that never sends
 * a byte is not a request yet and no Node timer covers it: the timer here
 * gives every connection `headersTimeoutMs` from its opening to its first
 * request's headers.
 *
 * The connection bound guards file descriptors and memory. Unless configured
 * it is half the process's open-files limit (Node raises the soft limit to
 * the hard one at start; the other half stays for upstream connections, the
 * configuration and log files), at least 256 and at most 16,384 (the memory
 * that many idle keep-alive connections hold:
 * bench/README.md#figures-behind-comments-in-the-code); 1,024 where the
 * limit cannot be read (no /proc). A fixed 1,024 was too few for a gateway
 * behind a proxy pool or with a thousand clients on keep-alive.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, RequestListener, Server, ServerOptions, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { httpModule } from './node-http.js';
import { InFlight } from '../shared/in-flight.js';

// Not an ES import of node:http (platform/net/node-http.ts says why): nothing on the path to /readyz imports it as a module.
const { createServer } = httpModule();

export interface ServerLimits {
  /** From a connection's first byte (or its opening) to the end of a request's headers. */
  headersTimeoutMs: number;
  /** From a request's first byte to the end of its body; 408 and close afterwards. */
  requestTimeoutMs: number;
  /** Open connections at once; further ones are closed on arrival. Absent: defaultMaxConnections(). */
  maxConnections?: number | undefined;
}

export const DEFAULT_SERVER_LIMITS: ServerLimits = { headersTimeoutMs: 15_000, requestTimeoutMs: 60_000 };

const MIN_DEFAULT_CONNECTIONS = 256;
const MAX_DEFAULT_CONNECTIONS = 16_384;
const UNKNOWN_LIMIT_CONNECTIONS = 1_024;

/** The connection bound when none is configured, from the open-files limit (`/proc/self/limits` text; see the module comment). */
export function defaultMaxConnections(procLimits: string | undefined = readProcLimits()): number {
  const match = procLimits === undefined ? null : /^Max open files\s+(\d+|unlimited)/m.exec(procLimits);
  if (!match) return UNKNOWN_LIMIT_CONNECTIONS;
  const openFiles = match[1] === 'unlimited' ? Infinity : Number(match[1]);
  return Math.max(MIN_DEFAULT_CONNECTIONS, Math.min(MAX_DEFAULT_CONNECTIONS, Math.floor(openFiles / 2)));
}

function readProcLimits(): string | undefined {
  try {
    return readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return undefined;
  }
}

export interface LimitedServer {
  server: Server;
  /** Requests being answered now. */
  readonly active: number;
  /** Resolves when no request is being answered, or after `deadlineMs`; with how many are left. */
  idle(deadlineMs: number): Promise<number>;
  /**
   * Stops listening and closes the idle connections; a request that arrived on a connection in that moment (a proxy
   * reusing a keep-alive connection as the drain ended) is answered within `settleMs` (a 503 while refusing); then
   * every connection left is destroyed, whatever it is doing.
   */
  destroy(settleMs?: number): Promise<void>;
}

/** A node:http server with `limits` applied and its requests counted, for draining. */
export function createLimitedServer(limits: ServerLimits, listener: RequestListener, onDrop?: () => void): LimitedServer {
  const options: ServerOptions = {
    headersTimeout: limits.headersTimeoutMs,
    // Node refuses a request timeout shorter than the headers timeout.
    requestTimeout: Math.max(limits.requestTimeoutMs, limits.headersTimeoutMs),
    // Node checks both timers on this interval (default 30 s, which would let a timeout run up to 30 s late).
    connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4))),
  };
  const requests = new InFlight();
  // One listener for every response (a response emits `close` once): `once` and an arrow per request were ~0.6 KB of
  // every call's garbage (bench/README.md, issue 39).
  const leave = () => requests.leave();
  const server = createServer(options, (req: IncomingMessage, res: ServerResponse) => {
    clearFirstRequestTimer(req.socket);
    requests.enter();
    res.on('close', leave);
    listener(req, res);
  });
  server.maxConnections = limits.maxConnections ?? defaultMaxConnections();
  if (onDrop) server.on('drop', onDrop);
  server.on('connection', (socket: Socket) => startFirstRequestTimer(socket, limits.headersTimeoutMs));
  return {
    server,
    get active() {
      return requests.size;
    },
    idle: (deadlineMs) => requests.idle(deadlineMs),
    destroy: (settleMs = 0) =>
      new Promise<void>((resolve) => {
        const cutAll = () => {
          server.close(); // http's close: its connection checks stop too
          server.closeAllConnections();
        };
        // net's close stops the listener alone. http's would also close the connections it finds idle at once, some
        // with a request's bytes already received but not yet read (a loaded event loop reads them late).
        NetServer.prototype.close.call(server, () => resolve());
        if (settleMs <= 0) return cutAll();
        // One turn of the event loop reads what the connections received; those requests are answered first.
        setImmediate(() => void requests.idle(settleMs).then(cutAll));
      }),
  };
}

const FIRST_REQUEST_TIMER = Symbol('first-request timer');
type TimedSocket = Socket & { [FIRST_REQUEST_TIMER]?: NodeJS.Timeout };

/**
 * Destroys a connection whose first request's headers have not arrived within
 * `ms` of its opening. (A 'data' listener cannot see the first byte: the HTTP
 * parser reads the socket's handle directly.)
 */
function startFirstRequestTimer(socket: TimedSocket, ms: number): void {
  const timer = setTimeout(() => socket.destroy(), ms);
  timer.unref();
  socket[FIRST_REQUEST_TIMER] = timer;
  socket.once('close', () => clearTimeout(timer));
}

function clearFirstRequestTimer(socket: TimedSocket): void {
  const timer = socket[FIRST_REQUEST_TIMER];
  if (timer) {
    clearTimeout(timer);
    socket[FIRST_REQUEST_TIMER] = undefined;
  }
}
