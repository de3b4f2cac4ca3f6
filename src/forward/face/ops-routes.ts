/**
 * The operations endpoints beside `/mcp`: `/healthz`, `/readyz`, `/metrics`
 * and the OAuth protected-resource metadata.
 *
 * - Host rule (DNS rebinding): on a loopback bind these answer only Host
 *   names /mcp accepts (localhost names unless `http.allowedHosts` says
 *   otherwise), so a web page rebound to 127.0.0.1 reads nothing. On any
 *   other bind they answer every Host: kubelet probes and Prometheus address
 *   a pod by its IP, which no allow-list can name in advance.
 * - `/metrics` needs `Authorization: Bearer <http.metricsToken>` when one is
 *   configured.
 * - `/readyz` tells which upstream fails and why in the bridge's own words
 *   (the catalog service never keeps an upstream's error text).
 * - The metadata names the configured resource, never the request's Host.
 */
import { matchesAnyDigest, secretDigest as digest } from '../../platform/shared/secret-match.js';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type express from 'express';
import type { NextFunction, Request, Response } from 'express';
import type { Metrics } from '../../platform/metrics.js';
import { PROTECTED_RESOURCE_PATH, type InboundAuth } from './inbound-auth.js';
import { validateHostHeader } from '../../platform/net/host-origin.js';
import { sendJson } from '../../platform/net/json-response.js';

export interface OpsRoutesOptions {
  auth: InboundAuth;
  /** Readiness and its per-upstream detail. */
  status: () => { ready: boolean } & Record<string, unknown>;
  draining: () => boolean;
  metrics?: Metrics | undefined;
  /** When set, /metrics needs it as a bearer token. */
  metricsToken?: string | undefined;
  /** Host names accepted on these endpoints; undefined = any. */
  allowedHosts?: string[] | undefined;
  /** Told after each `/readyz` answered 200 (the face starts its warm-up after the first). */
  onReady?: (() => void) | undefined;
}

export const OPS_PATHS = ['/healthz', '/readyz', '/metrics', PROTECTED_RESOURCE_PATH, `${PROTECTED_RESOURCE_PATH}/mcp`];

/** The routes' handlers, shared by express (every spelling) and the exact-path dispatch ahead of it. */
function opsHandlers(options: OpsRoutesOptions) {
  const { allowedHosts } = options;
  return {
    /** False when the request was refused (answered 403). */
    hostAllowed(req: IncomingMessage, res: ServerResponse): boolean {
      if (!allowedHosts) return true;
      const verdict = validateHostHeader(req.headers.host, allowedHosts);
      if (verdict.ok) return true;
      options.metrics?.rejections.inc({ reason: 'host_or_origin' });
      sendJson(res, 403, { error: verdict.message });
      return false;
    },
    // Arrow functions: passed to express as they are, they must not need `this`.
    healthz: (_req: IncomingMessage, res: ServerResponse): void => {
      sendJson(res, 200, { status: 'ok' });
    },
    readyz: (_req: IncomingMessage, res: ServerResponse): void => {
      const status = { ...options.status(), ...(options.draining() ? { ready: false, draining: true } : {}) };
      sendJson(res, status.ready ? 200 : 503, status);
      if (status.ready) options.onReady?.();
    },
  };
}

/**
 * `GET /healthz` and `GET /readyz` spelt exactly, answered without express:
 * the face loads express after it listens, and probes (and the cold-start
 * figure) need only these two. Returns false for any other request, which
 * then goes to express — where the same handlers serve other spellings, HEAD
 * and the remaining routes.
 */
export function exactOpsRoutes(options: OpsRoutesOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  const h = opsHandlers(options);
  return (req, res) => {
    if (req.method !== 'GET' || (req.url !== '/healthz' && req.url !== '/readyz')) return false;
    if (h.hostAllowed(req, res)) (req.url === '/healthz' ? h.healthz : h.readyz)(req, res);
    return true;
  };
}

export function mountOpsRoutes(app: express.Express, options: OpsRoutesOptions): void {
  const h = opsHandlers(options);
  if (options.allowedHosts) {
    app.use(OPS_PATHS, (req: Request, res: Response, next: NextFunction) => {
      if (h.hostAllowed(req, res)) next();
    });
  }
  app.get('/healthz', h.healthz);
  // RFC 9728 metadata, at the root and with the resource path suffix (/mcp).
  for (const path of [PROTECTED_RESOURCE_PATH, `${PROTECTED_RESOURCE_PATH}/mcp`]) {
    app.get(path, (_req, res) => {
      const metadata = options.auth.protectedResourceMetadata();
      if (metadata) res.json(metadata);
      else res.status(404).json({ error: 'not found' });
    });
  }
  app.get('/readyz', h.readyz);
  if (options.metrics) {
    const registry = options.metrics.registry;
    const expected = options.metricsToken === undefined ? undefined : digest(options.metricsToken);
    app.get('/metrics', (req, res) => {
      if (expected && !bearerMatches(req.headers.authorization, expected)) {
        options.metrics?.rejections.inc({ reason: 'unauthenticated' });
        res.status(401).set('www-authenticate', 'Bearer realm="metrics"').json({ error: 'a bearer token is required for /metrics' });
        return;
      }
      registry.metrics().then(
        (text) => res.type(registry.contentType).send(text),
        () => res.status(500).end(),
      );
    });
  }
}

/** The /metrics token: `http.metricsToken` (MCP_METRICS_TOKEN), else the first line of `http.metricsTokenFile`. */
export function metricsTokenOf(http: { metricsToken?: string | undefined; metricsTokenFile?: string | undefined }): string | undefined {
  if (http.metricsToken) return http.metricsToken;
  if (!http.metricsTokenFile) return undefined;
  const token = readFileSync(http.metricsTokenFile, 'utf8').split('\n')[0]!.trim();
  if (token.length < 16) throw new Error(`the /metrics token in ${http.metricsTokenFile} is shorter than 16 characters`);
  return token;
}

function bearerMatches(authorization: string | undefined, expected: Buffer): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  return match !== null && matchesAnyDigest(digest(match[1]!), [expected]);
}
