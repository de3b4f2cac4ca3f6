/**
 * The parts of undici the OXP client uses — `Agent`, `request` and the error
 * classes — required from undici's own modules instead of its index. The
 * index also loads fetch, WebSocket, EventSource, caches and mocks, and its
 * cookie module touches `globalThis.Headers`, which loads Node's bundled copy
 * of undici as well: ~110 files where the client needs ~30 (docs/benchmarks.md,
 * "Start-up, catalog and sessions"). undici itself has since left the path to
 * `/readyz` (it loads with the warm-up after the first readiness answer,
 * bench/README.md "2026-11-24, evening"); what this saves now is warm-up time.
 *
 * These are undici's modules, not copies: `request` does what the index's
 * `request` does for a URL and options without `path` (undici's makeDispatcher), and
 * test/unit/undici-parts.test.ts checks that `Agent` and `errors` are the
 * index's own and that the paths exist in the pinned version (package.json).
 */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const requireUndici = createRequire(import.meta.url);

type Api = { request: (this: Undici.Dispatcher, options: Undici.Dispatcher.RequestOptions) => Promise<Undici.Dispatcher.ResponseData> };

export const Agent = requireUndici('undici/lib/dispatcher/agent.js') as typeof Undici.Agent;
export type Agent = Undici.Agent;
export const errors = requireUndici('undici/lib/core/errors.js') as typeof Undici.errors;
const api = requireUndici('undici/lib/api/index.js') as Api;
const { parseURL } = requireUndici('undici/lib/core/util.js') as { parseURL: (url: string | URL) => URL };
// What the index does once: the request API on every dispatcher (idempotent when the index loads too).
Object.assign((requireUndici('undici/lib/dispatcher/dispatcher.js') as { prototype: object }).prototype, api);

type RequestOptions = Omit<Undici.Dispatcher.RequestOptions, 'origin' | 'path' | 'method'> & { method?: Undici.Dispatcher.HttpMethod; dispatcher: Undici.Dispatcher };

/** Where a request goes, as undici's dispatch takes it: worked out once per URL (a URL parse per call cost a few µs). */
export interface RequestTarget {
  origin: string;
  path: string;
}

export function requestTarget(url: string | URL): RequestTarget {
  const parsed = parseURL(url);
  return { origin: parsed.origin, path: parsed.search ? `${parsed.pathname}${parsed.search}` : parsed.pathname };
}

/** undici's `request(url, options)` for a URL (string or object, or a target worked out before) and an explicit dispatcher. */
export function request(url: string | URL | RequestTarget, options: RequestOptions): Promise<Undici.Dispatcher.ResponseData> {
  const target = typeof url === 'string' || url instanceof URL ? requestTarget(url) : url;
  return api.request.call(options.dispatcher, {
    ...options,
    origin: target.origin,
    path: target.path,
    method: options.method || (options.body ? 'PUT' : 'GET'),
  });
}
