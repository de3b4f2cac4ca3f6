/**
 * The operator console: `GET /console/` serves the static page (assets.ts),
 * `/console/api/*` its JSON API. Mounted by both commands with
 * `app.use('/console', createConsoleRouter(...))`.
 *
 * - Every response carries a strict Content-Security-Policy (only this
 *   origin's files; no inline script or style, no frames, no form posts).
 * - Host and Origin are checked as on the command's own endpoint (the
 *   caller passes the same lists), against DNS rebinding.
 * - The page itself holds no data and needs no credentials; the API needs
 *   the command's own authentication (the page sends the operator's token
 *   as an `Authorization` header; no cookie is ever set).
 * - The API is read-only. "Try a tool" is a normal call the page sends to
 *   the command's own endpoint (/mcp or /tools/call); the API only renders
 *   its answer per MCP revision (`POST .../render`, a pure computation).
 */
import type { IncomingMessage } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Principal } from '../core/principal.js';
import { hostOriginProblem } from '../platform/net/host-origin.js';
import { consoleAssets } from './assets.js';

export const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** An HTTP answer the console sends as it is given: the command's own refusal. */
export interface ConsoleRefusal {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The command's own verdict on a request: who it is (undefined when nobody authenticated), or its refusal (401/403). */
export type ConsoleAuthOutcome = { ok: true; principal?: Principal | undefined } | ({ ok: false } & ConsoleRefusal);

export interface ConsoleAccess {
  authenticate(req: IncomingMessage): Promise<ConsoleAuthOutcome>;
  /** Host names accepted (undefined = any). */
  allowedHosts: string[] | undefined;
  /** Origin host names accepted; requests without Origin pass (undefined = any). */
  allowedOrigins: string[] | undefined;
  /** Counts a refusal (metrics), by reason. */
  refused?(reason: 'host_or_origin' | 'unauthenticated' | 'forbidden'): void;
}

export type Rendered = { ok: true; value: unknown } | { ok: false; status: number; message: string };

/** The Tools view "as a principal": `as` names one (`/console/api/principals`), or `custom` with the fields after it. */
export interface ToolsAs {
  as: string;
  name: string;
  groups: string;
  scopes: string;
  kind: string;
  /** Also list the tools hidden from it (each with the rule that hides it). */
  hidden: boolean;
}

/** A request the API cannot answer as asked: answered 400 with its message. */
export class BadConsoleRequest extends Error {}

export interface ConsoleApi {
  /** `caller`: who is asking (the page and `doctor --url` show it). */
  overview(caller: Principal | undefined): unknown;
  upstreams(): unknown;
  tools(query: string, as?: ToolsAs): Promise<unknown>;
  /** Bridge only: who the Tools view can show the catalog as. */
  principals?(): unknown;
  /** undefined: no such tool. */
  tool(name: string): Promise<unknown>;
  calls(limit: number): unknown;
  /** Bridge only: a tools/call result as each MCP revision receives it. */
  render?(name: string, result: unknown): Promise<Rendered>;
}

/** Largest body `POST /console/api/tools/:name/render` reads. */
export const MAX_RENDER_BODY_BYTES = 4 * 1024 * 1024;
const MAX_LISTED_CALLS = 200;

export function createConsoleRouter(access: ConsoleAccess, api: ConsoleApi): express.Router {
  const router = express.Router({ caseSensitive: true, strict: true });
  router.use(guard(access));
  servePage(router);
  router.use('/api', apiRouter(access, api));
  router.use((_req, res) => void res.status(404).json({ error: 'not found' }));
  router.use(answerFailure);
  return router;
}

/** Before anything: the security headers on every response, then Host and Origin (against DNS rebinding). */
function guard(access: ConsoleAccess) {
  return (req: Request, res: Response, next: NextFunction) => {
    res.set({
      'content-security-policy': CONSOLE_CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
      'cross-origin-resource-policy': 'same-origin',
    });
    const problem = hostOriginProblem(req.headers.host, req.headers.origin, access.allowedHosts, access.allowedOrigins);
    if (problem === undefined) return next();
    access.refused?.('host_or_origin');
    res.status(403).json({ error: problem });
  };
}

/** The static page (assets.ts): no data in it, so no credentials needed; revalidated by ETag. */
function servePage(router: express.Router): void {
  // `/console` → `/console/`, so the page's relative links work behind any path prefix.
  router.get('/', (req, res, next) => {
    if (!req.originalUrl.split('?')[0]!.endsWith('/')) return void res.redirect(301, `${req.baseUrl.split('/').pop()}/`);
    next();
  });
  for (const [name, asset] of consoleAssets()) {
    router.get(name === 'index.html' ? '/' : `/${name}`, (req, res) => {
      res.set({ 'cache-control': 'no-cache', etag: asset.etag });
      if (req.headers['if-none-match'] === asset.etag) return void res.status(304).end();
      res.type(asset.type).send(asset.body);
    });
  }
}

/** `/console/api/*`: the command's own authentication first, then the read-only routes over `api`. */
function apiRouter(access: ConsoleAccess, api: ConsoleApi): express.Router {
  const router = express.Router({ caseSensitive: true, strict: true });
  router.use(async (req: Request, res: Response, next: NextFunction) => {
    res.set('cache-control', 'no-store');
    try {
      const outcome = await access.authenticate(req);
      if (outcome.ok) {
        res.locals.principal = outcome.principal;
        return next();
      }
      access.refused?.(outcome.status === 403 ? 'forbidden' : 'unauthenticated');
      res.status(outcome.status).set(outcome.headers).send(outcome.body);
    } catch (error) {
      next(error);
    }
  });
  router.get('/overview', (_req, res) => void res.json(api.overview(res.locals.principal as Principal | undefined)));
  router.get('/upstreams', (_req, res) => void res.json(api.upstreams()));
  router.get('/principals', (_req, res) => void (api.principals ? res.json(api.principals()) : res.status(404).json({ error: 'not found' })));
  router.get('/tools', async (req, res) => {
    const as = toolsAs(req.query);
    if (as && !api.principals) throw new BadConsoleRequest('this console cannot show the tools as a principal');
    res.json(await api.tools(param(req.query.q, 200), as));
  });
  router.get('/tools/:name', async (req, res) => {
    const tool = await api.tool(String(req.params.name));
    if (tool === undefined) return void res.status(404).json({ error: `no tool ${String(req.params.name)}` });
    res.json(tool);
  });
  router.post('/tools/:name/render', express.json({ limit: MAX_RENDER_BODY_BYTES, type: () => true }), async (req, res) => {
    if (!api.render) return void res.status(404).json({ error: 'not found' });
    const body: unknown = req.body;
    const rendered = await api.render(String(req.params.name), typeof body === 'object' && body !== null ? (body as { result?: unknown }).result : undefined);
    if (rendered.ok) res.json(rendered.value);
    else res.status(rendered.status).json({ error: rendered.message });
  });
  router.get('/calls', (req, res) => {
    const limit = Math.min(MAX_LISTED_CALLS, Math.max(1, Number(req.query.limit) || 50));
    res.json(api.calls(limit));
  });
  router.use((_req, res) => void res.status(404).json({ error: 'not found' }));
  return router;
}

/** A query parameter as one bounded string ('' when absent or repeated). */
function param(value: unknown, maxChars: number): string {
  return typeof value === 'string' ? value.slice(0, maxChars) : '';
}

/** `?as=…` and its companions, bounded; undefined without `as` (every tool, as everyone sees the catalog). */
function toolsAs(query: Request['query']): ToolsAs | undefined {
  const as = param(query.as, 200);
  if (!as) return undefined;
  const hidden = param(query.hidden, 5);
  return {
    as,
    name: param(query.name, 1024),
    groups: param(query.groups, 8192),
    scopes: param(query.scopes, 8192),
    kind: param(query.kind, 20),
    hidden: hidden === '1' || hidden === 'true',
  };
}

/** Body-parser failures (not JSON, too large) are the client's; anything else is ours, without detail. */
function answerFailure(err: { status?: number; type?: unknown }, _req: Request, res: Response, _next: NextFunction): void {
  if (err instanceof BadConsoleRequest) return void res.status(400).json({ error: err.message });
  if (err.type !== undefined)
    return void res
      .status(err.status === 413 ? 413 : 400)
      .json({ error: err.status === 413 ? 'request body too large' : 'the request body is not valid JSON' });
  res.status(500).json({ error: 'the console failed to answer this request' });
}
