/**
 * Per-user provider tokens as an MCP request carries them over HTTP: `X-OXP-Authorization-<provider>: <token>` (the
 * prefix is `requirements.authorizationHeaderPrefix`), read here at the face into values the bridge takes — by
 * lower-cased provider id, a `Bearer ` scheme dropped. Which upstream may receive which provider's token is the
 * bridge's (requirement-values.ts, grants).
 */
import type { IncomingHttpHeaders } from 'node:http';

/** The request's provider tokens; undefined when it carries none (nothing is allocated then). */
/** `prefix` lower-cased (node's header names are). */
export function providerTokens(headers: IncomingHttpHeaders, prefix: string): Map<string, string> | undefined {
  let tokens: Map<string, string> | undefined;
  for (const name in headers) {
    if (!name.startsWith(prefix) || name.length <= prefix.length) continue;
    const raw = headers[name];
    // Repeated headers as `Headers` joins them.
    const value = typeof raw === 'string' ? raw : Array.isArray(raw) ? raw.join(', ') : undefined;
    if (value) (tokens ??= new Map()).set(name.slice(prefix.length), value.replace(/^Bearer\s+/i, ''));
  }
  return tokens;
}
