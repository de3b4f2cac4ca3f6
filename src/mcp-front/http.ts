/**
 * The Streamable HTTP front: `POST /mcp` (both eras), and the operations
 * endpoints (ops-routes.ts), on a server with bounded header and body times
 * and connections (server-limits.ts).
 *
 * Every MCP request first passes one node-level gate — drain state,
 * Host/Origin (403), authentication (401/403), per-client admission (429) —
 * then a POST's body is read once (a JSON-RPC batch is charged per message
 * against the admission, and bounded by `maxBatchSize`), and only then
 * reaches one of two paths that answer it:
 * - the fast path (fast-path.ts) for plain tools/call and tools/list, which
 *   answers on node:http without the SDK's per-request pipeline;
 * - the SDK endpoint for everything else, behind which this module adds what
 *   the SDK leaves to the host: a JSON depth limit, and self-contained legacy
 *   session ids (session.ts) so a 2024-11-05 or 2025-03-26 client, which sends
 *   no `MCP-Protocol-Version` header, is still answered in its own revision.
 */
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import express from 'express';
import type { Bridge } from '../bridge/bridge.js';
import { exceedsJsonDepth, isPlainObject, tryParseJson } from '../core/json.js';
import { MODERN_VERSION } from '../core/mcp-versions.js';
import type { Logger } from '../log.js';
import {
  authInfoFor,
  createMcpFetchHandler,
  principalOf,
  isSupportedLegacyVersion,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  negotiatedLegacyVersion,
  toNodeHandler,
  validateHostHeader,
  validateOriginHeader,
  URL_ELICITATION_HEADER,
  type ServerIdentity,
} from './mcp-sdk.js';
import { SessionCodec } from './session.js';
import type { HttpRefusal, InboundAuth, Principal } from './inbound-auth.js';
import { ClientLimits, type Admitted, type ClientLimitsConfig } from './client-limits.js';
import { createFastPath, type FastPathStats } from './fast-path.js';
import type { Metrics } from '../metrics.js';
import { createLimitedServer, type ServerLimits } from '../server-limits.js';
import { mountOpsRoutes } from './ops-routes.js';
import { CallCancellations } from './cancellations.js';
import { mountBridgeConsole, type ConsoleConfig } from '../console/bridge-console.js';

export interface HttpFrontOptions extends ServerLimits {
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
  /** Serve plain tools/call and tools/list without the SDK pipeline (fast-path.ts). */
  fastPath: boolean;
  /** Most messages in one JSON-RPC batch. */
  maxBatchSize: number;
  /** When set, /metrics needs it as a bearer token (resolved from metricsTokenFile by the caller). */
  metricsToken?: string;
  metricsTokenFile?: string;
  /** The operator console at /console (src/console/); off when absent. */
  console?: ConsoleConfig;
}

export interface HttpFront {
  url: string;
  /** MCP requests being served now. */
  readonly inFlight: number;
  /** How many POSTs the fast path answered and declined (undefined when it is off). */
  fastPathStats?: FastPathStats;
  /** Stop accepting (new requests get 503, readiness 503), wait for in-flight requests up to the deadline; resolves with those left. */
  drain(deadlineMs: number): Promise<number>;
  /** Closes every connection now, whatever it is doing (requests still running are aborted). */
  close(): Promise<void>;
}

const SESSION_HEADER = 'mcp-session-id';

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export async function startHttpFront(bridge: Bridge, identity: ServerIdentity, options: HttpFrontOptions, log: Logger): Promise<HttpFront> {
  const sessions = new SessionCodec(options.sessionSecret, options.sessionTtlSeconds);
  const cancellations = new CallCancellations();
  const mcp = createMcpFetchHandler(bridge, identity, {
    cancellations,
    maxRequestBodyBytes: options.maxRequestBodyBytes,
    keepAliveMs: options.keepAliveMs,
    onerror: (error) => log.debug({ err: error.message }, 'mcp endpoint reported'),
  });
  const stopNotifying = bridge.onCatalogChange(() => mcp.notifyToolsChanged());
  const allowedHosts = options.allowedHosts ?? (isLoopbackHost(options.host) ? localhostAllowedHostnames() : undefined);
  const allowedOrigins = options.allowedOrigins ?? localhostAllowedOrigins();
  const limits = new ClientLimits(options.limits);

  /**
   * What every MCP request passes before anything answers it: Host/Origin
   * (DNS rebinding), authentication, then per-client admission. Node-level,
   * so that both paths that may answer are behind the same checks.
   */
  // Host and Origin values repeat from request to request: remember the verdicts (bounded).
  const verdicts = new Map<string, string | undefined>();
  const hostOriginProblem = (host: string | undefined, origin: string | undefined): string | undefined => {
    const key = `${host ?? ''}\n${origin ?? ''}`;
    if (verdicts.has(key)) return verdicts.get(key);
    const h = allowedHosts ? validateHostHeader(host, allowedHosts) : { ok: true as const };
    const o = h.ok ? validateOriginHeader(origin, allowedOrigins) : h;
    const problem = o.ok ? undefined : o.message;
    if (verdicts.size >= 256) verdicts.clear();
    verdicts.set(key, problem);
    return problem;
  };

  const gate = async (req: IncomingMessage): Promise<{ ok: true; principal?: Principal; admission?: Admitted } | ({ ok: false } & HttpRefusal)> => {
    const problem = hostOriginProblem(req.headers.host, req.headers.origin);
    if (problem !== undefined) {
      options.metrics?.rejections.inc({ reason: 'host_or_origin' });
      return { ok: false, ...refusal(403, -32000, problem) };
    }
    const auth = await options.auth.authenticate(req.headers.authorization);
    if (!auth.ok) {
      options.metrics?.rejections.inc({ reason: auth.status === 403 ? 'forbidden' : 'unauthenticated' });
      return auth;
    }
    if (!limits.enabled) return auth;
    const admission = limits.admit(auth.principal?.subject ?? req.socket.remoteAddress ?? 'unknown');
    if (!admission.ok) {
      options.metrics?.rejections.inc({ reason: admission.reason });
      return { ok: false, ...tooMany(admission) };
    }
    return { ...auth, admission };
  };

  // The SDK path. Past the gate: the principal arrives as the SDK's pass-through authInfo.
  const fetchWithSessions = (request: Request, extra?: { authInfo?: unknown }): Promise<Response> => dispatch(request, principalOf(extra?.authInfo));

  const dispatch = async (request: Request, principal: Principal | undefined): Promise<Response> => {
    // Read once: the text is depth-checked before any parser sees it, then parsed once and handed
    // to the SDK as `parsedBody` (the SDK then reads nothing); a body that is not JSON goes as text,
    // for the SDK's own parse-error answer.
    let body: unknown;
    if (request.method === 'POST') {
      const text = await request.text();
      if (exceedsJsonDepth(text, options.maxJsonDepth)) {
        options.metrics?.rejections.inc({ reason: 'json_too_deep' });
        return jsonRpcError(400, -32600, `Request nests deeper than ${options.maxJsonDepth} levels.`);
      }
      body = parseJsonBody(text);
      if (body === undefined) return mcp.fetch(new Request(request, { body: text }), principal);
    }
    // Internal headers are the bridge's to set, never the client's.
    if (request.headers.has(URL_ELICITATION_HEADER)) request = withHeaders(request, (h) => h.delete(URL_ELICITATION_HEADER));

    const headerVersion = request.headers.get('mcp-protocol-version');
    // Modern (2026-07-28) requests carry their version and never use sessions.
    if (headerVersion !== null && headerVersion >= MODERN_VERSION) return mcp.fetch(request, principal, body);

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
      return mcp.fetch(request, principal, body);
    }

    if (!isPlainObject(body) || body.method !== 'initialize') return mcp.fetch(request, principal, body);
    const params = isPlainObject(body.params) ? body.params : {};
    const response = await mcp.fetch(request, principal, body);
    if (response.status !== 200) return response;
    // A session exists only once initialize succeeded: look at the (small) answer.
    const text = await response.text();
    const headers = new Headers(response.headers);
    const capabilities = isPlainObject(params.capabilities) ? params.capabilities : {};
    const urlElicitation = isPlainObject(capabilities.elicitation) && capabilities.elicitation.url !== undefined;
    if (initializeSucceeded(text)) headers.set(SESSION_HEADER, sessions.mint(negotiatedLegacyVersion(params.protocolVersion), urlElicitation));
    return new Response(text, { status: response.status, statusText: response.statusText, headers });
  };

  const mcpNode = toNodeHandler(
    { fetch: fetchWithSessions },
    { maxRequestBodySize: options.maxRequestBodyBytes, onerror: (error) => log.error({ err: error.message }, 'mcp adapter failure') },
  );

  const fast = options.fastPath
    ? createFastPath({ bridge, serverInfo: { name: identity.name, version: identity.version }, sessions, keepAliveMs: options.keepAliveMs, log, cancellations })
    : undefined;

  /**
   * A JSON-RPC batch costs one admission per message: the gate admitted the HTTP request (one),
   * this charges the rest, or refuses the whole batch before any of it runs.
   */
  const batchRefusal = (batch: unknown[], admission: Admitted | undefined): HttpRefusal | undefined => {
    if (batch.length > options.maxBatchSize) {
      options.metrics?.rejections.inc({ reason: 'batch_too_large' });
      return refusal(400, -32600, `Batch of ${batch.length} messages refused: at most ${options.maxBatchSize} per batch.`);
    }
    const refused = admission?.charge(batch.length - 1);
    if (!refused) return undefined;
    options.metrics?.rejections.inc({ reason: refused.reason });
    return tooMany(refused);
  };

  /** POST /mcp: read the body once; batches are charged, then the fast path answers it, or the SDK gets the same bytes. */
  const servePost = (req: IncomingMessage, res: ServerResponse, principal: Principal | undefined, admission: Admitted | undefined): void => {
    if (Number(req.headers['content-length']) > options.maxRequestBodyBytes) return void mcpNode(req, res);
    const chunks: Buffer[] = [];
    let size = 0;
    let handedOver = false;
    const toSdk = () => {
      handedOver = true;
      // A stand-in for the request with the bytes already read (the node adapter reads headers, method, url, auth and the body).
      const replay = Object.assign(Readable.from(chunks), { headers: req.headers, method: req.method, url: req.url, auth: (req as { auth?: unknown }).auth });
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
      let text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // as the SDK's TextDecoder reads it
      // Deeply nested JSON goes to the SDK path, whose guard refuses it before any parse.
      const body = exceedsJsonDepth(text, options.maxJsonDepth) ? undefined : parseJsonBody(text);
      const refused = Array.isArray(body) ? batchRefusal(body, admission) : undefined;
      if (refused) return send(res, refused);
      // 2025-era cancellations reach the call they name here; the SDK then acknowledges the notification as usual.
      const sessionId = req.headers[SESSION_HEADER];
      if (typeof sessionId === 'string' && body !== undefined) cancellations.cancelFrom(body, sessionId, principal?.subject);
      if (body === undefined || !fast?.tryServe(req, res, body, principal)) toSdk();
    });
  };

  let draining = false;
  let inFlight = 0;
  const idle: (() => void)[] = [];
  const handleMcp = (req: IncomingMessage, res: ServerResponse): void => {
    if (draining) {
      options.metrics?.rejections.inc({ reason: 'shutting_down' });
      return send(res, refusal(503, -32603, 'The bridge is shutting down; retry on another instance.', { connection: 'close' }));
    }
    inFlight += 1;
    let admission: Admitted | undefined;
    res.on('close', () => {
      admission?.release();
      if (--inFlight === 0) for (const wake of idle.splice(0)) wake();
    });
    void gate(req).then(
      (admitted) => {
        if (!admitted.ok) return send(res, admitted);
        admission = admitted.admission;
        (req as IncomingMessage & { auth?: unknown }).auth = admitted.principal ? authInfoFor(admitted.principal) : undefined;
        if (req.method === 'POST') servePost(req, res, admitted.principal, admission);
        else void mcpNode(req, res);
      },
      (error: unknown) => {
        log.error({ err: error instanceof Error ? error.message : String(error) }, 'mcp gate failure');
        send(res, refusal(500, -32603, 'Internal error'));
      },
    );
  };

  const app = express();
  app.disable('x-powered-by');
  mountOpsRoutes(app, {
    auth: options.auth,
    status: () => bridge.status,
    draining: () => draining,
    metrics: options.metrics,
    metricsToken: options.metricsToken,
    // DNS rebinding: on loopback, the same Host names as /mcp; elsewhere probes and scrapers come by pod IP.
    allowedHosts: isLoopbackHost(options.host) ? allowedHosts : undefined,
  });
  if (options.console?.enabled) mountBridgeConsole(app, bridge, identity, { auth: options.auth, allowedHosts, allowedOrigins, metrics: options.metrics, config: options.console });
  // Odd spellings of the path (`/MCP`, `/mcp/`) still reach the endpoint through express's matching.
  app.all('/mcp', handleMcp);
  app.use((_req, res) => {
    res.status(404).json({ error: 'not found' });
  });

  // `/mcp` goes straight to the endpoint; express (its router costs a few % per call) serves the rest.
  const limited = createLimitedServer(
    options,
    (req, res) => {
      if (req.url === '/mcp') handleMcp(req, res);
      else app(req, res);
    },
    () => options.metrics?.rejections.inc({ reason: 'too_many_connections' }),
  );
  const server = limited.server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  // Idle keep-alive connections outlive common proxy pools' idle timeouts (60 s).
  server.keepAliveTimeout = 65_000;
  const address = server.address() as AddressInfo;
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${hostForUrl}:${address.port}/mcp`;
  log.info({ url, fast_path: Boolean(fast) }, 'MCP Streamable HTTP endpoint listening');
  return {
    url,
    ...(fast ? { fastPathStats: fast.stats } : {}),
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
      // Connections first: waiting for them (a withheld body, a silent upstream) is what the drain was for.
      const closed = limited.destroy();
      await mcp.close();
      await closed;
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

function refusal(status: number, code: number, message: string, headers: Record<string, string> = {}): HttpRefusal {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }) };
}

function tooMany(refused: { retryAfterSeconds: number; message: string }): HttpRefusal {
  return refusal(429, -32000, `${refused.message} Retry after ${refused.retryAfterSeconds} s.`, { 'retry-after': String(refused.retryAfterSeconds) });
}

function send(res: ServerResponse, answer: HttpRefusal): void {
  if (!res.headersSent) res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
}

/** The request with edited headers. Its body, when it had one, was already read: it travels as `parsedBody`. */
function withHeaders(request: Request, edit: (headers: Headers) => void): Request {
  const headers = new Headers(request.headers);
  edit(headers);
  return new Request(request.url, { method: request.method, headers, signal: request.signal });
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
