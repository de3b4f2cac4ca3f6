/**
 * The limit store shared by replicas: counters in Redis, taken by one atomic
 * script per acquire (redis-script.ts), so N replicas enforce one limit.
 *
 * Redis is never allowed to hold a call: an acquire answers within
 * commandTimeoutMs whatever Redis does (down, unreachable, frozen), and after
 * a timeout the store does not ask again for a second, so a frozen server
 * costs one wait per second rather than one per call. What an acquire that
 * could not reach Redis answers is `store.redis.onUnavailable`'s: 'share'
 * (this replica's share of the limit, counted here: replica-share.ts),
 * 'allow' (uncounted, `degraded`) or 'refuse' ('store_unavailable').
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { RedisStoreSettings } from '../../config/store-schema.js';
import {
  admittedFreely,
  inFlightRefusal,
  limitsNothing,
  rateRefusalFor,
  type LimitSpec,
  type LimitStore,
  type LimitStoreHooks,
  type LimitVerdict,
} from './limit-types.js';
import { openRedis, redisTarget, type RedisTarget, type ScriptedRedis } from './redis-connection.js';
import { readAnswer, redisKeys } from './redis-script.js';
import { ReplicaShare } from './replica-share.js';

/** After a command timed out, acquires skip Redis this long. */
const SUSPEND_AFTER_TIMEOUT_MS = 1_000;

/** Why the store could not answer; the message names where Redis is, never its credentials. */
export class LimitStoreError extends Error {
  constructor(
    readonly code: 'timeout' | 'unreachable' | 'closed' | 'error',
    message: string,
  ) {
    super(message);
    this.name = 'LimitStoreError';
  }
}

const noop = () => {};

export class RedisLimitStore implements LimitStore {
  readonly kind = 'redis';
  private readonly target: RedisTarget;
  private readonly client: Promise<ScriptedRedis | LimitStoreError>;
  private everReady = false;
  private failing = false;
  private closed = false;
  private suspendedUntil = 0;
  private reconnectDelayMs = 0;
  /** This replica's share of each limit, counted all along: what 'share' enforces while Redis does not answer. */
  private readonly share: ReplicaShare;

  /** Throws a ConfigError for a bad URL (at start-up); connects in the background. */
  constructor(
    private readonly settings: RedisStoreSettings,
    private readonly hooks: LimitStoreHooks,
  ) {
    this.target = redisTarget(settings.url);
    this.client = openRedis(settings, this.target, (delay) => (this.reconnectDelayMs = delay)).then(
      (client) => this.watch(client as ScriptedRedis),
      (error: unknown) => this.storeError(error),
    );
    this.share = new ReplicaShare(settings, () => this.client);
  }

  async acquire(key: string, spec: LimitSpec): Promise<LimitVerdict> {
    if (limitsNothing(spec)) return admittedFreely;
    if (this.closed) return this.unavailable(new LimitStoreError('closed', 'The limit store is closed.'), key, spec);
    if (Date.now() < this.suspendedUntil)
      return this.unavailable(new LimitStoreError('timeout', `${this.about()} timed out less than a second ago.`), key, spec);
    const deadline = Date.now() + this.settings.commandTimeoutMs;
    const { bucket, leases } = redisKeys(this.settings.keyPrefix, key);
    const leaseId = randomBytes(12).toString('base64url');
    let client: ScriptedRedis | undefined;
    let reply: unknown;
    try {
      client = await this.usable(deadline);
      const leaseMs = this.settings.leaseSeconds * 1000;
      reply = await beforeDeadline(client.limitAcquire(bucket, leases, spec.requestsPerMinute, spec.burst, spec.maxInFlight, leaseMs, leaseId), deadline);
    } catch (error) {
      const failure = this.storeError(error);
      // Only Redis's own slowness suspends: not the wait for the library to load or the first connection to open.
      if (failure.code === 'timeout' && client) {
        this.suspendedUntil = Date.now() + SUSPEND_AFTER_TIMEOUT_MS;
        // The script may still run once Redis wakes: this removal, sent after it on the same connection, undoes its lease.
        if (spec.maxInFlight > 0) client.zrem(leases, leaseId).catch(noop);
      }
      return this.unavailable(failure, key, spec);
    }
    return this.verdict(reply, key, spec, client, leases, leaseId);
  }

  /** Unlike an acquire, waits through failed attempts (Redis may start after the bridge), until `timeoutMs`. */
  async whenReady(timeoutMs = this.settings.connectTimeoutMs): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    const client = await beforeDeadline(this.client, deadline).catch(() => undefined);
    if (!client || client instanceof LimitStoreError) return false;
    if (client.status === 'ready') return true;
    let onReady = noop;
    const ready = new Promise<void>((resolve) => client.once('ready', (onReady = resolve)));
    return beforeDeadline(ready, deadline).then(
      () => true,
      () => (client.off('ready', onReady), false),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    this.share.stop();
    const client = await this.client;
    if (client instanceof LimitStoreError) return;
    if (client.status !== 'ready') return client.disconnect();
    await beforeDeadline(client.quit(), Date.now() + 1_000).catch(() => client.disconnect());
  }

  private verdict(reply: unknown, key: string, spec: LimitSpec, client: ScriptedRedis, leases: string, leaseId: string): LimitVerdict {
    let answer;
    try {
      answer = readAnswer(reply);
    } catch (error) {
      return this.unavailable(this.storeError(error), key, spec);
    }
    if (this.failing) {
      this.failing = false;
      this.notify(() => this.hooks.onRecovered?.());
    }
    if (!answer.admitted) return answer.reason === 'rate_limited' ? rateRefusalFor(spec, '', answer.waitMs) : inFlightRefusal(spec, '');
    // What Redis admitted is charged to this replica's share too (when it fits): a switch to 'share' knows it.
    const shadow = this.settings.onUnavailable === 'share' ? this.share.charge(key, spec) : undefined;
    if (spec.maxInFlight <= 0 && !shadow) return admittedFreely;
    let held = true;
    return {
      ok: true,
      release: () => {
        // Best effort: when Redis cannot be told, the lease expires after leaseSeconds.
        if (held && spec.maxInFlight > 0) client.zrem(leases, leaseId).catch(noop);
        if (held) shadow?.();
        held = false;
      },
    };
  }

  /** The client once it can take commands; before its first connection, waits for it until `deadline`. */
  private async usable(deadline: number): Promise<ScriptedRedis> {
    const client = await beforeDeadline(this.client, deadline);
    if (client instanceof LimitStoreError) throw client;
    if (!this.everReady && client.status !== 'ready') {
      // A first connection that already failed is retried after a backoff: no call waits for that.
      if (client.status === 'reconnecting') throw new LimitStoreError('unreachable', `${this.about()} has not been reached yet.`);
      // once() rejects on the client's 'error' event: a refused first connection fails at once, not at the deadline.
      await once(client, 'ready', { signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())) });
    }
    return client;
  }

  private watch(client: ScriptedRedis): ScriptedRedis {
    // Connection errors are reported by the acquires they fail; without a listener ioredis would print each one.
    client.on('error', noop);
    client.on('ready', () => {
      this.everReady = true;
      this.reconnectDelayMs = 0;
      void this.share.announce();
    });
    return client;
  }

  private unavailable(error: LimitStoreError, key: string, spec: LimitSpec): LimitVerdict {
    this.failing = true;
    this.notify(() => this.hooks.onUnavailable(error));
    if (this.settings.onUnavailable === 'share') return this.share.acquire(key, spec);
    if (this.settings.onUnavailable === 'allow') return { ok: true, degraded: true, release: noop };
    const waitMs = Math.max(this.reconnectDelayMs, this.suspendedUntil - Date.now());
    return {
      ok: false,
      reason: 'store_unavailable',
      retryAfterSeconds: Math.min(5, Math.max(1, Math.ceil(waitMs / 1000))),
      message: 'Limits cannot be checked right now (the limit store does not answer), so limited calls are refused.',
    };
  }

  /** Any failure as a LimitStoreError whose text carries no credential and no `cause`. */
  private storeError(error: unknown): LimitStoreError {
    if (error instanceof LimitStoreError) return error;
    const text = this.target.redact(error instanceof Error ? error.message : String(error));
    const name = error instanceof Error ? error.name : '';
    if (name === 'TimeoutError' || name === 'AbortError' || /timed out/i.test(text)) {
      return new LimitStoreError('timeout', `${this.about()} did not answer within ${this.settings.commandTimeoutMs} ms.`);
    }
    const unreachable = /ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ECONNRESET|ETIMEDOUT|EPIPE|ENOENT|writeable|Connection is closed/i.test(text);
    return new LimitStoreError(unreachable ? 'unreachable' : 'error', `${this.about()}: ${text}`);
  }

  private about(): string {
    return `Redis limit store at ${this.target.where}`;
  }

  /** A hook that throws must not turn into a failed acquire. */
  private notify(call: () => void): void {
    try {
      call();
    } catch {
      // The hooks' owner logs; nothing more to do here.
    }
  }
}

/** `work`, or a TimeoutError at `deadline`, whichever comes first (`work` goes on, its outcome ignored). */
function beforeDeadline<T>(work: Promise<T>, deadline: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('timed out'), { name: 'TimeoutError' })), Math.max(0, deadline - Date.now()));
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
