/**
 * From `store.redis` to a bounded Redis client, and the one place that knows
 * the URL's credentials: they go into the client's options and nowhere else.
 * Every error the store reports passes through `redact`, and none carries the
 * URL or a `cause` (whose properties a logger might print).
 *
 * The client library loads here, lazily (`import()`), only when a Redis URL
 * is configured: loading it is a start-up cost every other deployment would
 * pay for nothing (bench/README.md#figures-behind-comments-in-the-code).
 */
import type { Redis, RedisOptions } from 'ioredis';
import { ConfigError } from '../../config/errors.js';
import type { RedisStoreSettings } from '../../config/store-schema.js';
import { ACQUIRE_LUA } from './redis-script.js';

export interface RedisTarget {
  /** Where the client connects, credentials included. */
  options: RedisOptions;
  /** For messages: host:port or the socket path, never credentials. */
  where: string;
  /** Removes every credential of the URL from a text. */
  redact: (text: string) => string;
}

/** Longest reconnect backoff step: a recovered Redis is used again within about this long. */
export const MAX_RECONNECT_DELAY_MS = 2_000;

/** Parses `store.redis.url`; a bad one is a configuration error whose text does not echo the URL. */
export function redisTarget(url: string): RedisTarget {
  if (url.startsWith('/')) return { options: { path: url }, where: url, redact: (text) => text };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError('store.redis.url is not a valid URL (redis://[user:password@]host[:port][/db], rediss://…, or a unix socket path).');
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') throw new ConfigError('store.redis.url must start with redis:// or rediss://.');
  const db = parsed.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d{1,5}$/.test(db)) throw new ConfigError('store.redis.url: the path must be a database number (e.g. /0).');
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  const options: RedisOptions = { host, port: parsed.port === '' ? 6379 : Number(parsed.port), db: db === '' ? 0 : Number(db) };
  const username = decodeURIComponent(parsed.username);
  const password = decodeURIComponent(parsed.password);
  if (username !== '') options.username = username;
  if (password !== '') options.password = password;
  if (parsed.protocol === 'rediss:') options.tls = { servername: host };
  const secrets = [url, parsed.password, password].filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
  const redact = (text: string) => secrets.reduce((out, secret) => out.split(secret).join('***'), text);
  return { options, where: `${parsed.hostname}:${options.port}`, redact };
}

/** Jittered exponential backoff, never giving up: a limit store that stops reconnecting would stay degraded until a restart. */
export function reconnectDelay(attempt: number): number {
  return Math.min(MAX_RECONNECT_DELAY_MS, 50 * 2 ** Math.min(attempt, 10)) + Math.floor(Math.random() * 100);
}

/** A connected-on-creation client that never waits: no offline queue, no resending, bounded connect and commands. */
/** Lua scripts a client defines as commands of its own (ioredis sends each as EVALSHA, EVAL on NOSCRIPT). */
export type RedisScripts = Record<string, { lua: string; numberOfKeys: number }>;

export async function openRedis(
  settings: RedisStoreSettings,
  target: RedisTarget,
  onRetry: (delayMs: number) => void,
  scripts: RedisScripts = { limitAcquire: { lua: ACQUIRE_LUA, numberOfKeys: 2 } },
): Promise<Redis> {
  const { Redis } = await import('ioredis');
  return new Redis({
    ...target.options,
    connectionName: 'mcp-oxp-bridge',
    connectTimeout: settings.connectTimeoutMs,
    // 0: no client timeout (the task store bounds its commands itself, redis-task-connection.ts answeredWithin).
    ...(settings.commandTimeoutMs > 0 && { commandTimeout: settings.commandTimeoutMs }),
    // Fail fast while disconnected rather than queue: a queued acquire would hold its call past commandTimeoutMs.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // A script that timed out was already answered (degraded or refused): replaying it later would spend a token.
    autoResendUnfulfilledCommands: false,
    retryStrategy: (attempt) => {
      const delay = reconnectDelay(attempt);
      onRetry(delay);
      return delay;
    },
    scripts,
  });
}

/** The client with the script `openRedis` defines: ioredis sends it as EVAL once per connection, then as EVALSHA, and as EVAL again on NOSCRIPT. */
export type ScriptedRedis = Redis & {
  limitAcquire(bucket: string, leases: string, rpm: number, burst: number, maxInFlight: number, leaseMs: number, leaseId: string): Promise<unknown>;
};
