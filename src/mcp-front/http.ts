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
import type { Server as HttpServer } from 'node:http';
import express from 'express';
import type { Bridge } from '../bridge/bridge.js';
import { exceedsJsonDepth, isPlainObject, tryParseJson } from '../core/json.js';
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
import { PROTECTED_RESOURCE_PATH, type InboundAuth, type Principal } from './inbound-auth.js';
import { ClientLimits, type ClientLimitsConfig } from './client-limits.js';
import type { Metrics } from '../metrics.js';

export interface HttpFrontOptions {
  auth: InboundAuth;
  maxJsonDepth: number;
  limits: ClientLimitsConfig;
  metrics?: Metrics;
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
}

export interface HttpFront {
  url: string;
  /** MCP requests being served now. */
  readonly inFlight: number;
  /** Stop accepting (new requests get 503, readiness 503), wait for in-flight requests up to the deadline; resolves with those left. */
  drain(deadlineMs: number): Promise<number>;
  close(): Promise<void>;
}

const SESSION_HEADER = 'mcp-session-id';
/** Set by the front from the socket (any client-sent value is overwritten). */
const CLIENT_ADDRESS_HEADER = 'x-mcp-oxp-bridge-client-address';

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
  const stopNotifying = bridge.onCatalogChange(() => mcp.notifyToolsChanged());
  const allowedHosts = options.allowedHosts ?? (isLoopbackHost(options.host) ? localhostAllowedHostnames() : undefined);
  const allowedOrigins = options.allowedOrigins ?? localhostAllowedOrigins();

  const limits = new ClientLimits(options.limits);
  const fetchWithSessions = async (request: Request): Promise<Response> => {
    // Internal headers are the bridge's to set, never the client's (the client address is set below, from the socket).
    if (request.headers.has(URL_ELICITATION_HEADER)) request = withHeaders(request, (h) => h.delete(URL_ELICITATION_HEADER));
    const rejected =
      (allowedHosts ? hostHeaderValidationResponse(request, allowedHosts) : undefined) ?? originValidationResponse(request, allowedOrigins);
    if (rejected) {
      options.metrics?.rejections.inc({ reason: 'host_or_origin' });
      return rejected;
    }
    const auth = await options.auth.authenticate(request);
    if (!auth.ok) {
      options.metrics?.rejections.inc({ reason: auth.response.status === 403 ? 'forbidden' : 'unauthenticated' });
      return auth.response;
    }
    const principal = auth.principal;
    const client = principal?.subject ?? request.headers.get(CLIENT_ADDRESS_HEADER) ?? 'unknown';
    const admission = limits.enabled ? limits.admit(client) : undefined;
    if (admission && !admission.ok) {
      options.metrics?.rejections.inc({ reason: admission.reason });
      return jsonRpcError(429, -32000, `${admission.message} Retry after ${admission.retryAfterSeconds} s.`, { 'retry-after': String(admission.retryAfterSeconds) });
    }
    if (!admission) return dispatch(request, principal);
    try {
      // A streamed (SSE) answer is still in flight after dispatch returns: release when the body ends.
      return whenBodyEnds(await dispatch(request, principal), admission.release);
    } catch (error) {
      admission.release();
      throw error;
    }
  };

  const dispatch = async (request: Request, principal: Principal | undefined): Promise<Response> => {
    let bodyText: string | undefined;
    if (request.method === 'POST') {
      // One read of the body: the depth guard runs before any JSON parser sees it.
      bodyText = await request.text();
      if (exceedsJsonDepth(bodyText, options.maxJsonDepth)) {
        options.metrics?.rejections.inc({ reason: 'json_too_deep' });
        return jsonRpcError(400, -32600, `Request nests deeper than ${options.maxJsonDepth} levels.`);
      }
      request = new Request(request.url, { method: 'POST', headers: request.headers, body: bodyText, signal: request.signal });
    }

    const headerVersion = request.headers.get('mcp-protocol-version');
    // Modern (2026-07-28) requests carry their version and never use sessions.
    if (headerVersion !== null && headerVersion >= MODERN_VERSION) return mcp.fetch(request, principal);

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
      return mcp.fetch(request, principal);
    }

    // Only an initialize needs a look inside (to mint the session id); a cheap text test spares the parse.
    if (bodyText === undefined || !bodyText.includes('"initialize"')) return mcp.fetch(request, principal);
    const body = tryParseJson(bodyText);
    if (!isPlainObject(body) || body.method !== 'initialize') return mcp.fetch(request, principal);
    const params = isPlainObject(body.params) ? body.params : {};
    const response = await mcp.fetch(request, principal);
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
  // RFC 9728 metadata, at the root and with the resource path suffix (/mcp).
  for (const path of [PROTECTED_RESOURCE_PATH, `${PROTECTED_RESOURCE_PATH}/mcp`]) {
    app.get(path, (req, res) => {
      const metadata = options.auth.protectedResourceMetadata(new Request(`http://${req.headers.host ?? 'localhost'}${req.originalUrl}`));
      if (metadata) res.json(metadata);
      else res.status(404).json({ error: 'not found' });
    });
  }
  let draining = false;
  let inFlight = 0;
  const idle: (() => void)[] = [];
  app.get('/readyz', (_req, res) => {
    const status = { ...bridge.status, ...(draining ? { ready: false, draining: true } : {}) };
    res.status(status.ready ? 200 : 503).json(status);
  });
  if (options.metrics) {
    const registry = options.metrics.registry;
    app.get('/metrics', (_req, res) => {
      registry.metrics().then(
        (text) => res.type(registry.contentType).send(text),
        () => res.status(500).end(),
      );
    });
  }
  const mcpNode = toNodeHandler(
    { fetch: fetchWithSessions },
    { maxRequestBodySize: options.maxRequestBodyBytes, onerror: (error) => log.error({ err: error.message }, 'mcp adapter failure') },
  );
  app.all('/mcp', (req, res) => {
    if (draining) {
      options.metrics?.rejections.inc({ reason: 'shutting_down' });
      res.status(503).set('connection', 'close').json({ jsonrpc: '2.0', id: null, error: { code: -32603, message: 'The bridge is shutting down; retry on another instance.' } });
      return;
    }
    req.headers[CLIENT_ADDRESS_HEADER] = req.socket.remoteAddress ?? 'unknown';
    inFlight += 1;
    res.on('close', () => {
      if (--inFlight === 0) for (const wake of idle.splice(0)) wake();
    });
    void mcpNode(req, res);
  });
  app.use((_req, res) => {
    res.status(404).json({ error: 'not found' });
  });

  const server: HttpServer = await new Promise((resolve, reject) => {
    const s = app.listen(options.port, options.host, () => resolve(s));
    s.once('error', reject);
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
    get inFlight() {
      return inFlight;
    },
    drain: async (deadlineMs: number) => {
      draining = true;
      server.close(); // no new connections; in-flight responses continue
      server.closeIdleConnections();
      if (inFlight > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, deadlineMs);
          idle.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return inFlight;
    },
    close: async () => {
      stopNotifying();
      await mcp.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    },
  };
}

/** The same response, calling `done` once its body has been fully read or cancelled. */
function whenBodyEnds(response: Response, done: () => void): Response {
  if (!response.body) {
    done();
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done: finished, value } = await reader.read();
        if (finished) {
          done();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        done();
        controller.error(error);
      }
    },
    cancel(reason) {
      done();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
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

function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }), { status, headers: { 'content-type': 'application/json', ...headers } });
}
