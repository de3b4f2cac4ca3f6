/**
 * The OXP face's HTTP layer on node:http: four fixed paths, their methods,
 * bodies read within bounds, JSON answers.
 *
 * An owned copy (docs/design.md, "Owned copies of library code") of express's
 * router and body parsers, which this face used until 2026-11-24: the face is
 * the embedded demo toolkit's upstream, on the bridge's start-up path, where
 * express would be the largest module graph before the first `/readyz` 200,
 * and it costs the oxp-server's calls too (`npm run bench:receipts --
 * routes`; the figures: bench/README.md#owned-copies-receipts-issue-31). What express did
 * here is kept, held by test/integration/oxp-server-protocol.test.ts: paths
 * match case-insensitively and with or without one trailing slash, HEAD is
 * answered as GET without a body, a known path with another method is 405
 * with `Allow`, anything else 404, and `x-powered-by` is not sent. Request
 * bodies are taken as UTF-8 without Content-Encoding (a compressed body is
 * refused with 415). Delete it (and platform/net/json-response.ts) when
 * express loads within ~2 % of the start-up and routes within ~2 % of a call.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '../../core/principal.js';
import { readBody, type BodyRead } from '../../platform/net/body-reader.js';

export interface Route {
  /** `Allow` for a 405, the first one named in its message. */
  allow: 'GET, HEAD' | 'POST';
  /** Runs before authentication (`GET /health`). */
  open?: boolean;
  /** `principal`: who authenticated, classified once by the router (the anonymous principal when nobody did). */
  handle(req: IncomingMessage, res: ServerResponse, path: string, principal: Principal): Promise<void> | void;
}

/** `/Tools/`, `/tools?x=1` → `/tools`. */
export function routePath(url: string | undefined): string {
  let path = (url ?? '/').split('?', 1)[0]!.toLowerCase();
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  return path;
}

export function allows(route: Route, method: string | undefined): boolean {
  return route.allow === 'POST' ? method === 'POST' : method === 'GET' || method === 'HEAD';
}

export type JsonBody = { ok: true; body: unknown } | { ok: false; status: 400 | 413 | 415; message: string };

/**
 * A request body as JSON within `maxBytes`: an empty one is `{}` (as express's
 * parser had it), text that is not JSON a 400, a larger one a 413. `lenient`
 * (GET /tools): text that is not JSON is no error, only no body.
 */
export async function jsonBody(req: IncomingMessage, maxBytes: number, lenient = false): Promise<JsonBody | undefined> {
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity')
    return { ok: false, status: 415, message: `Content-Encoding ${encoding} is not supported.` };
  const read: BodyRead = await readBody(req, maxBytes);
  switch (read.kind) {
    case 'json':
      return { ok: true, body: read.body };
    case 'not-json':
      if (lenient) return { ok: true, body: undefined };
      return read.text.trim() === '' ? { ok: true, body: {} } : { ok: false, status: 400, message: 'The request body is not valid JSON.' };
    case 'too-large':
      return { ok: false, status: 413, message: 'Request body too large' };
    default:
      return undefined; // the client went away while sending: nothing to answer
  }
}
