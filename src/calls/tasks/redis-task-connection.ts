/**
 * The Redis task store's connection (redis-store.ts): one bounded client with the store's scripts defined, every
 * round trip within commandTimeoutMs or a TaskStoreError that names where Redis is and never its credentials, and the
 * store's state (store-state.ts) following what each round trip found. While Redis does not answer, a probe looks
 * again every second, so the state turns back as soon as it does even when nothing asks.
 */
import type { Redis } from 'ioredis';
import type { RedisStoreSettings } from '../../config/store-schema.js';
import { openRedis, redisTarget, type RedisTarget } from '../limits/redis-connection.js';
import { TaskStoreError } from './redis-record.js';
import { CLAIM_LAPSED_LUA, COUNT_LIVE_LUA, CREATE_LUA, FORGET_LUA, LIST_PAGE_LUA, RENEW_LUA, SET_IF_REV_LUA } from './redis-scripts.js';
import { RETRY_MS } from './refused-creations.js';
import { StoreStateTracker } from './store-state.js';

/** The client with the store's scripts as commands of its own (ioredis: EVALSHA, EVAL on NOSCRIPT). */
export type TaskRedis = Redis &
  Record<
    'taskCreate' | 'taskForget' | 'taskSetIfRev' | 'taskRenew' | 'taskClaimLapsed' | 'taskListPage' | 'taskCountLive',
    (...args: (string | number)[]) => Promise<unknown>
  >;

const SCRIPTS = {
  taskCreate: { lua: CREATE_LUA, numberOfKeys: 5 },
  taskForget: { lua: FORGET_LUA, numberOfKeys: 5 },
  taskSetIfRev: { lua: SET_IF_REV_LUA, numberOfKeys: 2 },
  taskRenew: { lua: RENEW_LUA, numberOfKeys: 2 },
  taskClaimLapsed: { lua: CLAIM_LAPSED_LUA, numberOfKeys: 3 },
  taskListPage: { lua: LIST_PAGE_LUA, numberOfKeys: 2 },
  taskCountLive: { lua: COUNT_LIVE_LUA, numberOfKeys: 1 },
};

export class TaskRedisConnection {
  readonly availability = new StoreStateTracker();
  private readonly target: RedisTarget;
  private readonly client: Promise<TaskRedis>;
  private probe: NodeJS.Timeout | undefined;

  /** `onClient`: what the store adds to the client once made (its subscription, what it does at each connection). */
  constructor(
    private readonly settings: RedisStoreSettings,
    onClient: (client: TaskRedis) => void,
  ) {
    this.target = redisTarget(settings.url);
    // The client's own command timeout is off: `answeredWithin` keeps the bound without taking a stalled event loop
    // for a slow Redis.
    this.client = openRedis({ ...settings, commandTimeoutMs: 0 }, this.target, () => {}, SCRIPTS).then((made) => {
      const client = made as TaskRedis;
      client.on('error', () => {});
      client.on('close', () => this.availability.down(`Redis task store at ${this.target.where}: the connection closed.`));
      onClient(client);
      return client;
    });
    this.client.catch(() => {});
  }

  /** One round trip within commandTimeoutMs, or a TaskStoreError; the store's state follows. */
  async run<T>(command: (client: TaskRedis) => Promise<T>): Promise<T> {
    let client: TaskRedis;
    try {
      client = await this.client;
    } catch (error) {
      throw this.down(this.unavailable(error));
    }
    if (client.status !== 'ready') throw this.down(this.unavailable(new Error('not connected')));
    try {
      const reply = await answeredWithin(command(client), this.settings.commandTimeoutMs);
      this.availability.up();
      return reply;
    } catch (error) {
      if (error instanceof TaskStoreError) throw error;
      throw this.down(this.unavailable(error));
    }
  }

  /** A TaskStoreError for Redis not answering, in words that name where it is and no credential. */
  unavailable(error: unknown): TaskStoreError {
    const text = this.target.redact(error instanceof Error ? error.message : String(error));
    return new TaskStoreError('unavailable', `Redis task store at ${this.target.where}: ${text}`);
  }

  /** Resolves true once Redis answers (a start-up check; no operation needs it), false after `timeoutMs`. */
  async whenReady(timeoutMs = this.settings.connectTimeoutMs): Promise<boolean> {
    const client = await this.client.catch(() => undefined);
    if (!client) return false;
    if (client.status === 'ready') return true;
    return new Promise((resolve) => {
      const timer = setTimeout(() => (client.off('ready', ready), resolve(false)), timeoutMs);
      const ready = () => (clearTimeout(timer), resolve(true));
      client.once('ready', ready);
    });
  }

  async close(): Promise<void> {
    clearInterval(this.probe);
    const client = await this.client.catch(() => undefined);
    if (!client) return;
    await Promise.race([client.quit(), new Promise((resolve) => setTimeout(resolve, 1_000))]).catch(() => undefined);
    client.disconnect();
  }

  /** Redis did not answer: the state says so, and a probe looks again every second until it does. */
  private down(error: TaskStoreError): TaskStoreError {
    this.availability.down(error.message);
    this.probe ??= setInterval(() => {
      if (this.availability.state.available) {
        clearInterval(this.probe);
        this.probe = undefined;
        return;
      }
      this.run((c) => c.ping()).catch(() => undefined);
    }, RETRY_MS).unref();
    return error;
  }
}

/**
 * The command's answer if it comes within `ms`, else a rejection. When the timer fires, the rejection waits one more
 * turn of the event loop (setImmediate runs after the poll phase reads the sockets): after a stall of the event loop
 * longer than `ms` (a long GC, a burst of requests), an answer Redis sent in time is already in the socket, and is
 * taken rather than refused. A client timer alone fires before that read, failing every command in flight at once.
 */
export function answeredWithin<T>(answer: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (settled) return;
          settled = true;
          reject(new Error('Command timed out'));
        }),
      ms,
    );
    answer.then(
      (value) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
