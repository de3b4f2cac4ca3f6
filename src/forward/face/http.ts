/**
 * The Streamable HTTP face, on a server with bounded header and body times
 * and connections (server-limits.ts). `/mcp` spelt exactly goes straight to
 * the one pipeline of pipeline.ts (both eras), and `GET /healthz` and
 * `GET /readyz` spelt exactly to ops-routes.ts, all ahead of express; every
 * other route (the rest of the operations endpoints, the routes the command
 * mounts, odd spellings of `/mcp`, the 404) is express's (http-app.ts). This
 * module owns the lifecycle: listen, drain, close.
 *
 * Only what `/healthz` and `/readyz` need is loaded before the server
 * listens: express (with the other routes and what the command mounts) and
 * the MCP pipeline (with the SDK and zod) load right after, in the
 * background; a request that needs them and arrives first waits for them.
 */
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Express } from 'express';
import type { Bridge } from '../bridge/bridge.js';
import type { Logger } from '../../platform/log.js';
import type { Metrics } from '../../platform/metrics.js';
import { createLimitedServer, type ServerLimits } from '../../platform/net/server-limits.js';
import { LAST_REQUESTS_SETTLE_MS } from '../../platform/net/drain-phase.js';
import { isLoopbackHost } from '../../platform/net/loopback.js';
import type { ClientLimitsConfig } from './client-limits.js';
import { DrainTracker, refusal } from './admission.js';
import type { InboundAuth } from './inbound-auth.js';
import { hostPolicy } from './host-policy.js';
import type { ServerIdentity } from './mcp-server-sdk.js';
import { exactOpsRoutes, type OpsRoutesOptions } from './ops-routes.js';
import type { McpPipeline } from './pipeline.js';
import { loadInStages } from '../../platform/shared/staged-load.js';
import { JSONRPC_INTERNAL_ERROR } from '../../core/mcp-wire.js';

export interface HttpFaceOptions extends ServerLimits {
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
  /** Most messages in one JSON-RPC batch. */
  maxBatchSize: number;
  /** When set, /metrics needs it as a bearer token (resolved from metricsTokenFile by the caller). */
  metricsToken?: string;
  metricsTokenFile?: string;
  /** What the command mounts beside `/mcp` (the operator console: commands/forward-console.ts); nothing when absent. */
  mount?: FaceMount | undefined;
}

/** `/mcp`'s Host and Origin lists, as the face applies them (host-policy.ts: its defaults filled in). */
export interface FaceHosts {
  allowedHosts: string[] | undefined;
  allowedOrigins: string[];
}

/**
 * Routes and a call listener the command mounts on the face, which knows nothing of them (the operator console:
 * the oxp-server command mounts its own the same way). Both load after listening, with what they go with.
 */
export interface FaceMount {
  /** Loaded with the MCP pipeline, before it serves a request: what must see the first call (the console's recorder). */
  withPipeline(): Promise<void>;
  /** Loaded with express's app: mounts its routes on it, ahead of the odd spellings of `/mcp` and the 404. */
  routes(): Promise<(app: Express, hosts: FaceHosts) => void>;
}

export interface HttpFace {
  url: string;
  /** MCP requests being served now. */
  readonly inFlight: number;
  /**
   * Readiness 503 at once; MCP requests still served for `delayMs`, then answered 503 (Retry-After, `Connection:
   * close`); waits for those in flight up to `deadlineMs` from now; resolves with those left. The listener accepts
   * until close().
   */
  drain(delayMs: number, deadlineMs: number): Promise<number>;
  /** Closes every connection now, whatever it is doing (requests still running are aborted). */
  close(): Promise<void>;
}

/**
 * When the warm-up starts: after the first `/readyz` answered 200, or this long after listening when nothing
 * probes. Started at once, it held up the first probes (on Node 26 the whole warm-up ran before the first 200):
 * an orchestrator that sees a failed or slow first probe waits a whole probe period (10 s by default in
 * Kubernetes) before the next. An MCP request arriving before the warm-up loads what it needs itself.
 */
const WARM_UP_FALLBACK_MS = 1_000;

/**
 * How long the warm-up waits, before each stage after the call path's, for the MCP requests in flight to end: a
 * stage evaluates synchronously (the SDK with zod, express), and started while the first tools/call waits for its
 * upstream it held up the answer by its whole load (bench/README.md, issue 39). Past this, it loads anyway.
 */
const WARM_UP_IDLE_WAIT_MS = 1_000;

/**
 * After the pipeline is in, how long the warm-up leaves the face alone (once no MCP request is in flight) before the
 * call path's load, which evaluates synchronously for ~100 ms: the first requests after ready, sent as soon as it
 * turned 200, are answered meanwhile (a plain tools/list needs nothing more; a tools/call loads the call path itself).
 */
const WARM_UP_QUIET_MS = 25;

/**
 * What the command loads in the face's warm-up besides the face's own parts: `callPath` right after the MCP pipeline,
 * before anything else (what a plain tools/call needs that a tools/list does not: the OXP client's library, input
 * validation), `later` last (prom-client: /metrics and the call metrics wait for it without holding up a call).
 */
export interface WarmUpStages {
  callPath: (() => unknown)[];
  later: (() => unknown)[];
}

export async function startHttpFace(
  bridge: Bridge,
  identity: ServerIdentity,
  options: HttpFaceOptions,
  log: Logger,
  stages: WarmUpStages = { callPath: [], later: [] },
): Promise<HttpFace> {
  const tracker = new DrainTracker();
  const hosts = hostPolicy(options);
  const ops: OpsRoutesOptions = {
    auth: options.auth,
    status: () => bridge.status,
    draining: () => tracker.draining,
    metrics: options.metrics,
    metricsToken: options.metricsToken,
    // DNS rebinding: on loopback, the same Host names as /mcp; elsewhere probes and scrapers come by pod IP.
    allowedHosts: isLoopbackHost(options.host) ? hosts.allowedHosts : undefined,
    onReady: () => warmUp.start(),
  };
  const parts = lazyParts(bridge, identity, options, ops, hosts, tracker, log);
  const exactOps = exactOpsRoutes(ops);
  const limited = createLimitedServer(
    options,
    // `/mcp` exactly goes to the pipeline ahead of express's router, which measurably cost every tools/call
    // (bench:ab, bench/README.md#one-pipeline-issue-11). Every other path, and odd spellings of this one (`/MCP`,
    // `/mcp/`), go through express (but `GET /healthz` and `GET /readyz` spelt exactly, which need nothing express would load).
    (req, res) => {
      tracker.phase.closeConnectionsOf(res);
      return req.url === '/mcp' ? parts.handleMcp(req, res) : exactOps(req, res) || parts.handleOther(req, res);
    },
    () => options.metrics?.rejections.inc({ reason: 'too_many_connections' }),
  );
  const server = limited.server;
  const url = await listenOn(server, options);
  const warmUp = warmUpAfterListening(warmUpOrder(parts, tracker, stages));
  log.info({ url, max_connections: server.maxConnections }, 'MCP Streamable HTTP endpoint listening');
  return {
    url,
    get inFlight() {
      return tracker.inFlight;
    },
    // The listener accepts until close(): probes get their 503, late requests an answer (platform/net/drain-phase.ts).
    drain: (delayMs: number, deadlineMs: number) => tracker.drain(delayMs, deadlineMs),
    close: async () => {
      warmUp.cancel();
      // Connections first: waiting for them (a withheld body, a silent upstream) is what the drain was for. After a
      // drain that left nothing running, the last requests a proxy sent as it ended get their answer first.
      const closed = limited.destroy(limited.active === 0 ? LAST_REQUESTS_SETTLE_MS : 0);
      await parts.closePipeline();
      await closed;
    },
  };
}

/**
 * express's app (every route but the exact ones) and the MCP pipeline, loaded after listening. The pipeline does not
 * wait for express: it loads what the command mounts with it (`mount.withPipeline`, the console's recorder, no
 * express), so that sees every call and the first MCP request waits for the SDK and the pipeline only. A request that
 * needs one before it is in loads it.
 */
function lazyParts(
  bridge: Bridge,
  identity: ServerIdentity,
  options: HttpFaceOptions,
  ops: OpsRoutesOptions,
  hosts: ReturnType<typeof hostPolicy>,
  tracker: DrainTracker,
  log: Logger,
) {
  let app: RequestListener | undefined;
  let appLoading: Promise<RequestListener> | undefined;
  let pipeline: McpPipeline | undefined;
  let loading: Promise<McpPipeline> | undefined;
  const faceHosts: FaceHosts = { allowedHosts: hosts.allowedHosts, allowedOrigins: hosts.allowedOrigins };
  const loadApp = () =>
    (appLoading ??= Promise.all([import('./http-app.js'), options.mount?.routes()]).then(
      ([m, mount]) => (app = m.createFaceApp(ops, handleMcp, mount && ((express) => mount(express, faceHosts)))),
    ));
  const loadPipeline = () =>
    (loading ??= Promise.all([import('./pipeline.js'), options.mount?.withPipeline()]).then(
      ([m]) => (pipeline = m.createMcpPipeline(bridge, identity, { ...options, hostOriginProblem: hosts.mcpProblem }, tracker, log)),
    ));
  const whenLoaded = <T>(load: () => Promise<T>, what: string, res: ServerResponse, use: (loaded: T) => void) =>
    load().then(use, (error: unknown) => {
      log.error({ err: error instanceof Error ? error.message : String(error) }, `the ${what} did not load`);
      const answer = refusal(500, JSONRPC_INTERNAL_ERROR, 'Internal error');
      res.writeHead(answer.status, answer.headers).end(answer.body);
    });
  function handleMcp(req: IncomingMessage, res: ServerResponse): void {
    if (pipeline) return pipeline.handle(req, res);
    void whenLoaded(loadPipeline, 'MCP pipeline', res, (loaded) => loaded.handle(req, res));
  }
  const handleOther = (req: IncomingMessage, res: ServerResponse): void => {
    if (app) return app(req, res);
    void whenLoaded(loadApp, 'HTTP face', res, (loaded) => loaded(req, res));
  };
  const closePipeline = async () => void (await (await loading?.catch(() => undefined))?.close());
  return { handleMcp, handleOther, loadApp, loadPipeline, closePipeline };
}

/**
 * The MCP pipeline first (with the console's recorder, without the SDK): what the first plain tools/list after ready
 * waits for; then, after a quiet moment, what a plain tools/call needs besides; then, each once no MCP request is in
 * flight, the SDK (every other MCP request), express and the rest of the routes, and the command's later stages
 * (bench/README.md#first-request-after-ready-the-warm-up-not-the-catalog, and issue 39 below it).
 */
function warmUpOrder(parts: ReturnType<typeof lazyParts>, tracker: DrainTracker, stages: WarmUpStages): (() => unknown)[] {
  const idle = () => tracker.idle(WARM_UP_IDLE_WAIT_MS);
  const quiet = () => idle().then(() => sleep(WARM_UP_QUIET_MS, undefined, { ref: false }));
  const afterIdle = (stage: () => unknown) => [idle, stage];
  return [
    parts.loadPipeline,
    quiet,
    ...stages.callPath,
    ...[() => import('./mcp-server-sdk.js'), () => import('express'), parts.loadApp, ...stages.later].flatMap(afterIdle),
  ];
}

/** Listens; resolves with the /mcp URL. Idle keep-alive connections outlive common proxy pools' idle timeouts (60 s). */
async function listenOn(server: Server, options: { port: number; host: string }): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  server.keepAliveTimeout = 65_000;
  const address = server.address() as AddressInfo;
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${hostForUrl}:${address.port}/mcp`;
}

/** The warm-up: started by the first ready `/readyz` (`start`), or WARM_UP_FALLBACK_MS after listening; once. */
function warmUpAfterListening(stages: (() => unknown)[]): { start(): void; cancel(): void } {
  let started = false;
  const fallback = setTimeout(() => start(), WARM_UP_FALLBACK_MS);
  fallback.unref();
  function start(): void {
    if (started) return;
    started = true;
    clearTimeout(fallback);
    void loadInStages(stages);
  }
  return {
    start,
    // A warm-up not started yet never starts.
    cancel: () => {
      started = true;
      clearTimeout(fallback);
    },
  };
}
