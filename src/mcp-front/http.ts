/**
 * The Streamable HTTP front: `POST /mcp` (both eras), `/healthz`, `/readyz`.
 *
 * In front of the SDK endpoint it adds what the SDK leaves to the host:
 * Host/Origin validation (403), a body limit, and self-contained legacy
 * session ids (see session.ts) so a 2024-11-05 or 2025-03-26 client, which
 * sends no `MCP-Protocol-Version` header, is still answered in its own
 * revision on every request.
 */
import type { AddressInfo } from 'node:net';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import express from 'express';
import type { Bridge } from '../bridge/bridge.js';
import { isPlainObject, tryParseJson } from '../core/json.js';
import { MODERN_VERSION } from '../core/mcp-versions.js';
import type { Logger } from '../log.js';
import {
  createMcpFetchHandler,
  hostHeaderValidationResponse,
  isSupportedLegacyVersion,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  negotiatedLegacyVersion,
  originValidationResponse,
  toNodeHandler,
  URL_ELICITATION_HEADER,
  type ServerIdentity,
} from './mcp-sdk.js';
import { SessionCodec } from './session.js';
import { createFastPath, type FastPathStats } from './fast-path.js';

export interface HttpFrontOptions {
  host: string;
  port: number;
  maxRequestBodyBytes: number;
  /** Host header names accepted on /mcp; undefined = localhost names when bound to loopback, else any. */
  allowedHosts?: string[];
  /** Origin host names accepted on /mcp (requests without Origin always pass); undefined = localhost. */
  allowedOrigins?: string[];
  sessionSecret?: string;
  sessionTtlSeconds: number;
  keepAliveMs: number;
  /** Serve plain tools/call and tools/list without the SDK pipeline (fast-path.ts). */
  fastPath: boolean;
}

export interface HttpFront {
  url: string;
  /** How many POSTs the fast path answered and declined (undefined when it is off). */
  fastPathStats?: FastPathStats;
  close(): Promise<void>;
}

const SESSION_HEADER = 'mcp-session-id';

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export async function startHttpFront(bridge: Bridge, identity: ServerIdentity, options: HttpFrontOptions, log: Logger): Promise<HttpFront> {
  const sessions = new SessionCodec(options.sessionSecret, options.sessionTtlSeconds);
  const mcp = createMcpFetchHandler(bridge, identity, {
    maxRequestBodyBytes: options.maxRequestBodyBytes,
    keepAliveMs: options.keepAliveMs,
    onerror: (error) => log.debug({ err: error.message }, 'mcp endpoint reported'),
  });
  const stopNotifying = bridge.catalog.onChange(() => mcp.notifyToolsChanged());
  const allowedHosts = options.allowedHosts ?? (isLoopbackHost(options.host) ? localhostAllowedHostnames() : undefined);
  const allowedOrigins = options.allowedOrigins ?? localhostAllowedOrigins();

  /**
   * Hands a request to the SDK with its body already parsed (`parsedBody`):
   * the SDK then neither clones the request nor reads the body a second time.
   * A body that is not JSON goes through as text, for the SDK's own answer.
   */
  const forward = async (request: Request): Promise<Response> => {
    if (request.method !== 'POST') return mcp.fetch(request);
    const text = await request.text();
    const parsedBody = parseJsonBody(text);
    if (parsedBody === undefined) return mcp.fetch(new Request(request, { body: text }));
    return mcp.fetch(request, { parsedBody });
  };

  const fetchWithSessions = async (request: Request): Promise<Response> => {
    const rejected =
      (allowedHosts ? hostHeaderValidationResponse(request, allowedHosts) : undefined) ?? originValidationResponse(request, allowedOrigins);
    if (rejected) return rejected;

    // Internal headers are the bridge's to set, never the client's.
    if (request.headers.has(URL_ELICITATION_HEADER)) request = withHeaders(request, (h) => h.delete(URL_ELICITATION_HEADER));
    const headerVersion = request.headers.get('mcp-protocol-version');
    // Modern (2026-07-28) requests carry their version and never use sessions.
    if (headerVersion !== null && headerVersion >= MODERN_VERSION) return forward(request);

    const sessionId = request.headers.get(SESSION_HEADER);
    if (sessionId !== null) {
      const state = sessions.verify(sessionId);
      if (!state) return jsonRpcError(404, -32001, 'Session not found: initialize a new session');
      const setVersion = headerVersion === null && isSupportedLegacyVersion(state.v);
      if (setVersion || state.e) {
        request = withHeaders(request, (h) => {
          if (setVersion) h.set('mcp-protocol-version', state.v);
          if (state.e) h.set(URL_ELICITATION_HEADER, '1');
        });
      }
      return forward(request);
    }

    if (request.method !== 'POST') return mcp.fetch(request);
    // Read once: the parsed body both tells an initialize apart and goes to the SDK as is.
    const bodyText = await request.text();
    const body = parseJsonBody(bodyText);
    if (body === undefined) return mcp.fetch(new Request(request, { body: bodyText }));
    if (!isPlainObject(body) || body.method !== 'initialize') return mcp.fetch(request, { parsedBody: body });
    const params = isPlainObject(body.params) ? body.params : {};
    const response = await mcp.fetch(request, { parsedBody: body });
    if (response.status !== 200) return response;
    // A session exists only once initialize succeeded: look at the (small) answer.
    const text = await response.text();
    const headers = new Headers(response.headers);
    const capabilities = isPlainObject(params.capabilities) ? params.capabilities : {};
    const urlElicitation = isPlainObject(capabilities.elicitation) && capabilities.elicitation.url !== undefined;
    if (initializeSucceeded(text)) headers.set(SESSION_HEADER, sessions.mint(negotiatedLegacyVersion(params.protocolVersion), urlElicitation));
    return new Response(text, { status: response.status, statusText: response.statusText, headers });
  };

  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', (_req, res) => {
    const status = bridge.status;
    res.status(status.ready ? 200 : 503).json(status);
  });
  const mcpNode = toNodeHandler(
    { fetch: fetchWithSessions },
    { maxRequestBodySize: options.maxRequestBodyBytes, onerror: (error) => log.error({ err: error.message }, 'mcp adapter failure') },
  );
  // Odd spellings of the path (`/MCP`, `/mcp/`) still reach the endpoint through express's matching.
  app.all('/mcp', (req, res) => {
    void mcpNode(req, res);
  });
  app.use((_req, res) => {
    res.status(404).json({ error: 'not found' });
  });

  const fast = options.fastPath
    ? createFastPath({ bridge, serverInfo: { name: identity.name, version: identity.version }, sessions, allowedHosts, allowedOrigins, keepAliveMs: options.keepAliveMs, log })
    : undefined;

  /** POST /mcp with the fast path on: read the body once; the fast path answers it, or the SDK gets the same bytes. */
  const servePost = (req: IncomingMessage, res: ServerResponse): void => {
    if (Number(req.headers['content-length']) > options.maxRequestBodyBytes) return void mcpNode(req, res);
    const chunks: Buffer[] = [];
    let size = 0;
    let handedOver = false;
    const toSdk = () => {
      handedOver = true;
      // A stand-in for the request with the bytes already read (the node adapter reads headers, method, url and the body).
      const replay = Object.assign(Readable.from(chunks), { headers: req.headers, method: req.method, url: req.url });
      void mcpNode(replay as unknown as IncomingMessage, res);
    };
    req.on('data', (chunk: Buffer) => {
      if (handedOver) return;
      chunks.push(chunk);
      size += chunk.length;
      // Over the limit: the SDK answers 413 from what was read, as it would have.
      if (size > options.maxRequestBodyBytes) {
        req.pause();
        toSdk();
      }
    });
    req.on('error', () => res.destroy());
    req.on('end', () => {
      if (handedOver) return;
      let body: unknown;
      try {
        let text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // as the SDK's TextDecoder reads it
        body = text.length === 0 ? undefined : JSON.parse(text);
      } catch {
        body = undefined;
      }
      if (body === undefined || !fast!.tryServe(req, res, body)) toSdk();
    });
  };

  // `/mcp` goes straight to the endpoint; express (its router costs a few % per call) serves the rest.
  const server: HttpServer = createServer((req, res) => {
    if (req.url !== '/mcp') app(req, res);
    else if (fast && req.method === 'POST') servePost(req, res);
    else void mcpNode(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  // Long tool calls stream through idle proxies; never let Node cut them.
  server.requestTimeout = 0;
  server.headersTimeout = 30_000;
  server.keepAliveTimeout = 65_000;
  const address = server.address() as AddressInfo;
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${hostForUrl}:${address.port}/mcp`;
  log.info({ url }, 'MCP Streamable HTTP endpoint listening');
  return {
    url,
    ...(fast ? { fastPathStats: fast.stats } : {}),
    close: async () => {
      stopNotifying();
      await mcp.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    },
  };
}

/** The body as the SDK would parse it (plain `JSON.parse`), or undefined when empty or not JSON. */
function parseJsonBody(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function withHeaders(request: Request, edit: (headers: Headers) => void): Request {
  const headers = new Headers(request.headers);
  edit(headers);
  return new Request(request, { headers });
}

/** Whether an initialize answer (JSON or one SSE event) carries a result rather than an error. */
function initializeSucceeded(body: string): boolean {
  const data = body.trimStart().startsWith('{')
    ? body
    : body
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5))
        .join('');
  const message = tryParseJson(data);
  return isPlainObject(message) && isPlainObject(message.result);
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }), { status, headers: { 'content-type': 'application/json' } });
}
