/**
 * Per-user credentials for an upstream by OAuth 2.0 Token Exchange (RFC
 * 8693): the caller's access token (the subject token) is exchanged at the
 * configured token endpoint for a token meant for one upstream. The
 * caller's own token never goes upstream (MCP authorization forbids token
 * passthrough); only the exchanged one does.
 *
 * Exchanged tokens are cached per (subject, upstream, audience, resource,
 * scope), not per subject token, so a caller whose client refreshes its
 * token keeps its exchanged one; an entry is served until `refreshSkewSeconds`
 * before the earlier of its own expiry and its subject token's `exp`, so it
 * never outlives the sign-in it came from. Concurrent calls for one key make
 * one exchange. Failures are not cached: after signing in again, the next
 * call exchanges at once.
 *
 * Logs (debug, and a warning when the bridge's own credentials are refused)
 * carry the upstream, the outcome, the HTTP status and the OAuth error code,
 * never a token, the client secret or the authorization server's text.
 */
import type { CallSignal } from '../../platform/shared/call-signal.js';
import { LRUCache } from 'lru-cache';
import {
  basicAuthorization,
  exchangeCacheKey,
  exchangeRequestBody,
  failureResult,
  jwtExpiryMs,
  parseExchangeResponse,
  tokenEndpointProblem,
  type ExchangeResult,
  type ParsedExchange,
  type TokenExchangeSettings,
} from '../../core/token-exchange.js';
import type { Logger } from '../../platform/log.js';
import { isLoopbackHost } from '../../platform/net/loopback.js';
import { httpModule } from '../../platform/net/node-http.js';
import { untilAborted } from '../../platform/shared/until-aborted.js';

export type { ExchangeResult, TokenExchangeSettings } from '../../core/token-exchange.js';

/** Largest token endpoint answer read: a token response is a few KiB at most. */
export const MAX_EXCHANGE_RESPONSE_BYTES = 65_536;
export const DEFAULT_REFRESH_SKEW_SECONDS = 30;
export const DEFAULT_MAX_ENTRIES = 10_000;

export interface TokenExchangerOptions {
  now?: () => number;
  maxEntries?: number;
  refreshSkewSeconds?: number;
  log?: Logger;
}

interface CachedToken {
  token: string;
  expiresAt: number;
  /** When the entry stops being served: the skew before the earlier of its own expiry and the subject token's. */
  freshUntil: number;
}

class ExchangeIoError extends Error {}

export class TokenExchanger {
  // Private fields: an exchanger logged or serialised by mistake shows neither the secret nor a cached token.
  readonly #settings: TokenExchangeSettings;
  readonly #authorization: string;
  readonly #endpoint: URL;
  readonly #cache: LRUCache<string, CachedToken>;
  readonly #pending = new Map<string, Promise<ExchangeResult>>();
  readonly #now: () => number;
  readonly #skewMs: number;
  readonly #log: Logger | undefined;

  constructor(settings: TokenExchangeSettings, options: TokenExchangerOptions = {}) {
    const problem = tokenEndpointProblem(settings.tokenEndpoint, isLoopbackHost);
    if (problem) throw new Error(`token exchange: the token endpoint ${problem}`);
    this.#settings = settings;
    this.#endpoint = new URL(settings.tokenEndpoint);
    this.#authorization = basicAuthorization(settings.clientId, settings.clientSecret);
    this.#cache = new LRUCache({ max: options.maxEntries ?? DEFAULT_MAX_ENTRIES });
    this.#now = options.now ?? Date.now;
    this.#skewMs = (options.refreshSkewSeconds ?? settings.refreshSkewSeconds ?? DEFAULT_REFRESH_SKEW_SECONDS) * 1000;
    this.#log = options.log;
  }

  /**
   * A token for `upstream` on behalf of `cacheSubject` (the verified caller's
   * subject), from the cache or by exchanging `subjectToken`. Resolves to a
   * failure rather than rejecting, except when `signal` aborts: then it
   * rejects (the exchange itself goes on for whoever else waits on it, and
   * its result is cached).
   */
  exchange(subjectToken: string, cacheSubject: string, upstream: string, signal?: CallSignal): Promise<ExchangeResult> {
    const key = exchangeCacheKey(cacheSubject, upstream, this.#settings);
    const cached = this.#cache.get(key);
    if (cached && this.#now() < cached.freshUntil) {
      this.#log?.debug({ upstream, outcome: 'cached' }, 'token exchange');
      return Promise.resolve({ ok: true, token: cached.token, expiresAt: cached.expiresAt });
    }
    if (cached) this.#cache.delete(key);
    let shared = this.#pending.get(key);
    if (!shared) {
      shared = this.#exchangeNow(key, subjectToken, upstream).finally(() => this.#pending.delete(key));
      this.#pending.set(key, shared);
    }
    return untilAborted(shared, signal, 'token exchange cancelled');
  }

  /** Cached tokens right now (for tests and the console). */
  get size(): number {
    return this.#cache.size;
  }

  async #exchangeNow(key: string, subjectToken: string, upstream: string): Promise<ExchangeResult> {
    const started = this.#now();
    let parsed: ParsedExchange;
    try {
      const answer = await postForm(this.#endpoint, exchangeRequestBody(this.#settings, subjectToken), this.#authorization, this.#settings.timeoutMs);
      parsed = parseExchangeResponse(answer.status, answer.body, subjectToken);
    } catch (error) {
      parsed = { ok: false, kind: 'unavailable', reason: transportReason(error, this.#settings.timeoutMs) };
    }
    if (!parsed.ok) {
      const fields = { upstream, outcome: parsed.kind, status: parsed.status, error: parsed.error };
      if (parsed.operatorProblem) this.#log?.warn(fields, "token exchange: the token endpoint refused the bridge's client credentials");
      else this.#log?.debug(fields, 'token exchange');
      return failureResult(upstream, parsed);
    }
    const expiresAt = started + parsed.expiresInSeconds * 1000;
    const freshUntil = Math.min(expiresAt, jwtExpiryMs(subjectToken) ?? Infinity) - this.#skewMs;
    if (freshUntil > this.#now()) this.#cache.set(key, { token: parsed.token, expiresAt, freshUntil });
    this.#log?.debug({ upstream, outcome: 'exchanged', expiresInSeconds: parsed.expiresInSeconds }, 'token exchange');
    return { ok: true, token: parsed.token, expiresAt };
  }
}

/** The failure in the bridge's words: which of a few things went wrong, never the error's own text (it may quote the URL or the peer). */
function transportReason(error: unknown, timeoutMs: number): string {
  if (error instanceof ExchangeIoError) return error.message;
  const name = error instanceof Error ? error.name : '';
  if (name === 'AbortError' || name === 'TimeoutError') return `did not answer within ${timeoutMs} ms`;
  return 'could not be reached';
}

/**
 * One POST, on a fresh connection (exchanges are rare: the cache answers the
 * rest). node:http follows no redirect: a 3xx is just an answer, refused by
 * the parser. The whole exchange, connect included, is bounded by `timeoutMs`;
 * the answer by MAX_EXCHANGE_RESPONSE_BYTES.
 */
function postForm(url: URL, body: string, authorization: string, timeoutMs: number): Promise<{ status: number; body: string }> {
  const { request } = httpModule(url.protocol === 'https:' ? 'https:' : 'http:');
  const headers = {
    authorization,
    'content-type': 'application/x-www-form-urlencoded',
    'content-length': String(Buffer.byteLength(body)),
    accept: 'application/json',
  };
  return new Promise((resolve, reject) => {
    // Cutting an answer short also fails the response stream with its own error: report the cut, whichever comes first.
    let cut: ExchangeIoError | undefined;
    const fail = (error: Error) => reject(cut ?? error);
    const req = request(url, { method: 'POST', headers, agent: false, signal: AbortSignal.timeout(timeoutMs) }, (res) => {
      const tooLarge = () => req.destroy((cut = new ExchangeIoError(`answered with more than ${MAX_EXCHANGE_RESPONSE_BYTES} bytes`)));
      if (Number(res.headers['content-length']) > MAX_EXCHANGE_RESPONSE_BYTES) return void tooLarge();
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_EXCHANGE_RESPONSE_BYTES) tooLarge();
        else chunks.push(chunk);
      });
      res.on('error', fail);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', fail);
    req.end(body);
  });
}
