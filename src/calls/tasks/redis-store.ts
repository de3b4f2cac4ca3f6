/**
 * The task store shared by replicas (store.redis): every replica that names the same Redis and keyPrefix reads,
 * awaits and cancels every task, whichever replica created or runs it. The layout and the atomic steps are in
 * redis-scripts.ts; a record is read back as untrusted input (redis-record.ts).
 *
 * - Changes are compare-and-set on the record's revision (the replica computes the next record from the one it
 *   read; a concurrent change makes it read again), so the record's JSON is never parsed by Lua (whose number
 *   handling would round large integers in a result).
 * - Watchers are woken through one subscription per replica to `P tasks:changed`, and by a timer at the task's
 *   expiry (Redis expires the key; nobody is told).
 * - Like the limit store, it never waits on Redis longer than commandTimeoutMs: a failure is a TaskStoreError
 *   ('unavailable'), which held-locally.ts turns into answers from what this replica holds.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RedisStoreSettings } from '../../config/store-schema.js';
import { openRedis, redisTarget, type RedisTarget } from '../limits/redis-connection.js';
import { pageOf } from './list-cursor.js';
import { bodyOf, recordOf, TaskStoreError, type RecordBody } from './redis-record.js';
import { CLAIM_LAPSED_LUA, COUNT_ALL_LUA, CREATE_LUA, HEARTBEAT_LUA, SET_IF_REV_LUA } from './redis-scripts.js';
import {
  isTerminal,
  type CancelOutcome,
  type CreateOutcome,
  type HeartbeatOutcome,
  type JsonObject,
  type ListPage,
  type NewTask,
  type TaskChange,
  type TaskRecord,
  type TaskStore,
  type TaskStoreBounds,
  type TaskWatcher,
  type UpdateOutcome,
} from './store.js';

/** Compare-and-set attempts before a change gives up as 'busy' (each conflict means another replica changed it). */
const MAX_ATTEMPTS = 8;

type TaskRedis = Redis & {
  taskCreate(...args: (string | number)[]): Promise<[string, number, number]>;
  taskSetIfRev(...args: (string | number)[]): Promise<[string, number, number]>;
  taskHeartbeat(...args: (string | number)[]): Promise<string>;
  taskClaimLapsed(...args: (string | number)[]): Promise<string[]>;
  taskCountAll(...args: (string | number)[]): Promise<number>;
};

const SCRIPTS = {
  taskCreate: { lua: CREATE_LUA, numberOfKeys: 4 },
  taskSetIfRev: { lua: SET_IF_REV_LUA, numberOfKeys: 2 },
  taskHeartbeat: { lua: HEARTBEAT_LUA, numberOfKeys: 2 },
  taskClaimLapsed: { lua: CLAIM_LAPSED_LUA, numberOfKeys: 1 },
  taskCountAll: { lua: COUNT_ALL_LUA, numberOfKeys: 1 },
};

export class RedisTaskStore implements TaskStore {
  readonly kind = 'redis';
  private readonly target: RedisTarget;
  private readonly client: Promise<TaskRedis>;
  private readonly keys: { task: string; all: string; leases: string; owner: string; channel: string };
  private readonly watchers = new Map<string, { set: Set<TaskWatcher>; expiry?: NodeJS.Timeout }>();
  private subscriber: Redis | undefined;

  constructor(
    private readonly settings: RedisStoreSettings,
    readonly bounds: TaskStoreBounds,
  ) {
    this.target = redisTarget(settings.url);
    const p = settings.keyPrefix;
    this.keys = { task: `${p}task:`, all: `${p}tasks:all`, leases: `${p}tasks:leases`, owner: `${p}tasks:owner:`, channel: `${p}tasks:changed` };
    this.client = openRedis(settings, this.target, () => {}, SCRIPTS).then((client) => this.watchChanges(client as TaskRedis));
    this.client.catch(() => {});
  }

  async create(task: NewTask, holder: string, leaseMs: number): Promise<CreateOutcome> {
    const body = bodyOf({
      status: 'working',
      pollIntervalMs: task.pollIntervalMs,
      work: task.work,
      ...(task.statusMessage !== undefined && { statusMessage: task.statusMessage }),
    });
    const [answer, a, b] = await this.triple((c) =>
      c.taskCreate(
        this.taskKey(task.taskId),
        this.ownerKey(task.owner),
        this.keys.all,
        this.keys.leases,
        task.taskId,
        task.owner,
        body,
        task.ttlMs,
        leaseMs,
        holder,
        this.bounds.maxPerOwner,
        this.bounds.maxTotal,
        this.keys.task,
      ),
    );
    if (answer === 'duplicate_id' || answer === 'owner_full' || answer === 'store_full')
      return { ok: false, reason: answer, held: Number(a), retryAfterMs: Math.max(0, Number(b)) };
    if (answer !== 'ok') throw this.garbage('create');
    const record = await this.read(task.taskId);
    if (!record) throw this.garbage('create');
    return { ok: true, record };
  }

  async get(taskId: string, owner: string): Promise<TaskRecord | undefined> {
    const record = await this.read(taskId);
    return record?.owner === owner ? record : undefined;
  }

  async list(owner: string, cursor: string | undefined, limit: number): Promise<ListPage | 'bad_cursor'> {
    return pageOf(await this.ownedBy(owner), cursor, limit);
  }

  update(taskId: string, change: TaskChange): Promise<UpdateOutcome> {
    return this.change(taskId, undefined, (record) => {
      const terminal = change.status === 'completed' || change.status === 'failed';
      return {
        status: change.status,
        pollIntervalMs: record.pollIntervalMs,
        work: record.work,
        ...(change.statusMessage !== undefined && { statusMessage: change.statusMessage }),
        ...(change.status === 'input_required' && { inputRequests: change.inputRequests }),
        ...(terminal && { outcome: change.outcome }),
      };
    });
  }

  cancel(taskId: string, owner: string, statusMessage: string): Promise<CancelOutcome> {
    return this.change(taskId, owner, (record) => ({ status: 'cancelled', statusMessage, pollIntervalMs: record.pollIntervalMs, work: record.work }));
  }

  respond(taskId: string, owner: string, inputResponses: JsonObject): Promise<UpdateOutcome> {
    return this.change(taskId, owner, (record) => {
      const asked = record.status === 'input_required' ? record.inputRequests : undefined;
      const fresh = Object.entries(inputResponses).filter(([key]) => asked !== undefined && Object.hasOwn(asked, key));
      if (fresh.length === 0) return undefined;
      return { ...record, inputResponses: { ...record.inputResponses, ...Object.fromEntries(fresh) } };
    });
  }

  async heartbeat(taskId: string, holder: string, leaseMs: number): Promise<HeartbeatOutcome> {
    const answer = await this.run((c) => c.taskHeartbeat(this.taskKey(taskId), this.keys.leases, holder, leaseMs, taskId));
    if (answer === 'held' || answer === 'lost' || answer === 'ended') return answer;
    throw this.garbage('heartbeat');
  }

  async claimLapsed(holder: string, leaseMs: number, max: number): Promise<readonly TaskRecord[]> {
    const ids = await this.run((c) => c.taskClaimLapsed(this.keys.leases, holder, leaseMs, max, this.keys.task, this.keys.channel));
    if (!Array.isArray(ids)) throw this.garbage('claim');
    const records = await Promise.all(ids.slice(0, max).map((id) => this.read(String(id))));
    return records.filter((r): r is TaskRecord => r !== undefined);
  }

  watch(taskId: string, watcher: TaskWatcher): () => void {
    let entry = this.watchers.get(taskId);
    if (!entry) {
      this.watchers.set(taskId, (entry = { set: new Set() }));
      void this.armExpiry(taskId);
    }
    entry.set.add(watcher);
    return () => {
      const current = this.watchers.get(taskId);
      current?.set.delete(watcher);
      if (current?.set.size === 0) {
        clearTimeout(current.expiry);
        this.watchers.delete(taskId);
      }
    };
  }

  async count(owner?: string): Promise<number> {
    if (owner !== undefined) return (await this.ownedBy(owner)).length;
    const counted = Number(await this.run((c) => c.taskCountAll(this.keys.all)));
    if (!Number.isSafeInteger(counted) || counted < 0) throw this.garbage('count');
    return counted;
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
    for (const entry of this.watchers.values()) clearTimeout(entry.expiry);
    this.watchers.clear();
    this.subscriber?.disconnect();
    const client = await this.client.catch(() => undefined);
    if (!client) return;
    await Promise.race([client.quit(), new Promise((resolve) => setTimeout(resolve, 1_000))]).catch(() => undefined);
    client.disconnect();
  }

  /** The record under `taskId` whoever owns it (the runner's and the watchers' read), or undefined. */
  async read(taskId: string): Promise<TaskRecord | undefined> {
    return recordOf(taskId, await this.run((c) => c.hgetall(this.taskKey(taskId))));
  }

  /** A compare-and-set loop: `next` computes the body from the record read (undefined: nothing to write). */
  private async change(taskId: string, owner: string | undefined, next: (record: TaskRecord) => RecordBody | undefined): Promise<UpdateOutcome> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const record = await this.read(taskId);
      if (!record || (owner !== undefined && record.owner !== owner)) return { ok: false, reason: 'unknown' };
      if (isTerminal(record.status)) return { ok: false, reason: 'terminal', record };
      const body = next(record);
      if (!body) return { ok: true, record };
      const ended = isTerminal(body.status);
      const [answer, revision, at] = await this.triple((c) =>
        c.taskSetIfRev(
          this.taskKey(taskId),
          this.keys.leases,
          String(record.revision),
          bodyOf(body),
          body.status,
          taskId,
          this.keys.channel,
          ended ? '1' : '0',
        ),
      );
      if (answer === 'unknown') return { ok: false, reason: 'unknown' };
      if (answer === 'conflict') continue;
      if (answer !== 'ok') throw this.garbage('change');
      const { lease, statusMessage: _m, outcome: _o, inputRequests: _i, inputResponses: _r, ...kept } = record;
      return { ok: true, record: { ...kept, ...body, ...(!ended && lease && { lease }), revision: Number(revision), lastUpdatedAt: Number(at) } };
    }
    throw new TaskStoreError('busy', 'The task changed too often to be updated; try again.');
  }

  private async ownedBy(owner: string): Promise<TaskRecord[]> {
    const ids: unknown = await this.run((c) => c.zrange(this.ownerKey(owner), '0', String(this.bounds.maxPerOwner * 4 + 64)));
    if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) throw this.garbage('list');
    const records = await Promise.all(ids.map((id) => this.read(id)));
    return records.filter((r): r is TaskRecord => r?.owner === owner);
  }

  /** A script's three-part answer; anything else from Redis is garbage, never destructured. */
  private async triple(command: (client: TaskRedis) => Promise<[string, number, number]>): Promise<[string, number, number]> {
    const reply: unknown = await this.run(command);
    if (!Array.isArray(reply) || reply.length !== 3 || typeof reply[0] !== 'string') throw this.garbage('script');
    return reply as [string, number, number];
  }

  /** One Redis round trip within commandTimeoutMs, or a TaskStoreError that names no credential. */
  private async run<T>(command: (client: TaskRedis) => Promise<T>): Promise<T> {
    let client: TaskRedis;
    try {
      client = await this.client;
    } catch (error) {
      throw this.unavailable(error);
    }
    if (client.status !== 'ready') throw new TaskStoreError('unavailable', `Redis task store at ${this.target.where} is not connected.`);
    try {
      return await command(client);
    } catch (error) {
      if (error instanceof TaskStoreError) throw error;
      throw this.unavailable(error);
    }
  }

  /**
   * One subscription per replica: every change any replica makes wakes this one's watchers of that task. Made at
   * each connection here rather than by ioredis's autoResubscribe, whose SUBSCRIBE nobody awaits: a connection lost
   * before Redis answered it would reject it unhandled, which ends the process (test/hostile/redis-resubscribe.test.ts).
   */
  private watchChanges(client: TaskRedis): TaskRedis {
    client.on('error', () => {});
    const subscriber = (this.subscriber = client.duplicate({ enableOfflineQueue: true, autoResubscribe: false }));
    subscriber.on('error', () => {});
    subscriber.on('message', (_channel: string, taskId: string) => void this.wake(taskId));
    subscriber.on('ready', () => void subscriber.subscribe(this.keys.channel).catch(() => undefined));
    return client;
  }

  private async wake(taskId: string): Promise<void> {
    const entry = this.watchers.get(taskId);
    if (!entry) return;
    const record = await this.read(taskId).catch(() => null);
    if (record === null) return; // Redis did not answer: the next change or the expiry timer wakes them.
    for (const watcher of [...entry.set]) watcher(record);
  }

  /** Wakes the task's watchers with `undefined` once Redis has expired it (checked at its expiry, then retried briefly). */
  private async armExpiry(taskId: string, attempt = 0): Promise<void> {
    const record = await this.read(taskId).catch(() => null);
    const entry = this.watchers.get(taskId);
    if (!entry || record === null) return;
    if (record === undefined) {
      for (const watcher of [...entry.set]) watcher(undefined);
      return;
    }
    const wait = attempt === 0 ? Math.max(0, record.createdAt + record.ttlMs - Date.now()) : 100 * attempt;
    clearTimeout(entry.expiry);
    entry.expiry = setTimeout(() => void this.armExpiry(taskId, Math.min(attempt + 1, 50)), wait).unref();
  }

  private taskKey(taskId: string): string {
    return `${this.keys.task}${taskId}`;
  }

  /** The owner key is opaque and may be long: its index is named by a hash of it. */
  private ownerKey(owner: string): string {
    return `${this.keys.owner}${createHash('sha256').update(owner).digest('base64url')}`;
  }

  private unavailable(error: unknown): TaskStoreError {
    const text = this.target.redact(error instanceof Error ? error.message : String(error));
    return new TaskStoreError('unavailable', `Redis task store at ${this.target.where}: ${text}`);
  }

  private garbage(step: string): TaskStoreError {
    return new TaskStoreError('garbage', `The task store answered something unreadable (${step}).`);
  }
}
