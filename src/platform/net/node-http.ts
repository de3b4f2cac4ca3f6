/**
 * node:http and node:https, required rather than imported. On Node 24 and later an ES import of node:http reads
 * every export of the builtin, and its lazy WebSocket/CloseEvent/MessageEvent getters load Node's bundled undici:
 * ~40 ms of start-up on Node 26, the image's release (4–5 ms through require). node:https is required only when
 * used: it loads node:tls, which only an https upstream needs.
 */
import type * as Http from 'node:http';
import { createRequire } from 'node:module';

const requireBuiltin = createRequire(import.meta.url);

/** The client/server module for a URL protocol (`http:` or `https:`); both export the same request API. */
export function httpModule(protocol: 'http:' | 'https:' = 'http:'): typeof Http {
  return requireBuiltin(protocol === 'https:' ? 'node:https' : 'node:http') as typeof Http;
}
