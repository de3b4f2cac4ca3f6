/**
 * node:http and node:https, required rather than imported. On Node 24 and later an ES import of node:http reads
 * every export of the builtin, and its lazy WebSocket/CloseEvent/MessageEvent getters load Node's bundled undici,
 * a cold start's largest single cost on Node 26, the image's release (bench/README.md#figures-behind-comments-in-the-code).
 * node:https is required only when used: it loads node:tls, which only an https upstream needs.
 */
import type * as Http from 'node:http';
import { createRequire } from 'node:module';

const requireBuiltin = createRequire(import.meta.url);

/** The client/server module for a URL protocol (`http:` or `https:`); both export the same request API. */
export function httpModule(protocol: 'http:' | 'https:' = 'http:'): typeof Http {
  return requireBuiltin(protocol === 'https:' ? 'node:https' : 'node:http') as typeof Http;
}
