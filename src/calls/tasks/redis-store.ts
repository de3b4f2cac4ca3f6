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
 * - A refusal is final: a creation that got no answer in time carries a deadline on Redis's clock (redis-clock.ts)
 *   past which Redis refuses it, and is removed if Redis carried it out before then (refused-creations.ts).
 */
import type { RedisStoreSettings } from '../../config/store-schema.js';
import { decodeListCursor, encodeListCursor } from './list-cursor.js';
import { TaskKeys } from './redis-keys.js';
import { NO_GRACE, RedisLeases, type ResumeGrace } from './redis-leases.js';
import { RedisClock } from './redis-clock.js';
import { bodyOf, recordOf, recordsOfRows, TaskStoreError, unreadable, type RecordBody } from './redis-record.js';
import { TaskRedisConnection, type TaskRedis } from './redis-task-connection.js';
import { RedisWatchers } from './redis-watchers.js';
import { RefusedCreations, type RefusedCreation } from './refused-creations.js';
import type { StoreStateTracker } from './store-state.js';
import {
  createdRecord,
  isTerminal,
  ownersOutcome,
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

export type { ResumeGrace } from './redis-leases.js';

/** Compare-and-set attempts before a change gives up as 'busy' (each conflict means another replica changed it). */
const MAX_ATTEMPTS = 8;
export class RedisTaskStore implements TaskStore {
  readonly kind = 'redis';
  private readonly redis: TaskRedisConnection;
  private readonly keys: TaskKeys;
  private readonly leases: RedisLeases;
  private readonly watchers = new RedisWatchers((taskId) => this.read(taskId).catch(() => null));
  private readonly clock = new RedisClock();
  private readonly refused = new RefusedCreations((refused) => this.forget(refused));

  constructor(
    private readonly settings: RedisStoreSettings,
    readonly bounds: TaskStoreBounds,
    private readonly grace: ResumeGrace = NO_GRACE,
  ) {
    this.keys = new TaskKeys(settings.keyPrefix);
    this.redis = new TaskRedisConnection(settings, (client) => {
      client.on('ready', () => {
        void this.refused.flush();
        this.calibrate(3).catch(() => undefined);
      });
      this.watchers.subscribe(client, this.keys.channel);
    });
    this.leases = new RedisLeases(this.redis, this.keys, this.clock, grace);
  }

  /** Whether Redis answers, as this replica last found it (store-state.ts). */
  get availability(): StoreStateTracker {
    return this.redis.availability;
  }

  /**
   * A creation answered within commandTimeoutMs, or refused for good: each carries a deadline on Redis's clock past
   * which Redis refuses it, and one that got no answer is removed if Redis made it before then (refused-creations.ts).
   */
  async create(task: NewTask, holder: string, leaseMs: number): Promise<CreateOutcome> {
    if (!this.clock.known) await this.calibrate();
    let [answer, a, b] = await this.createOnce(task, holder, leaseMs);
    // Refused by its deadline yet answered in time: the clock's bound was loose (a slow first reading). Nothing was
    // written, and the answer's time tightened the bound: one more try.
    if (answer === 'late') [answer, a, b] = await this.createOnce(task, holder, leaseMs);
    if (answer === 'late') throw this.redis.unavailable(new Error('the creation reached Redis after its deadline'));
    if (answer === 'duplicate_id' || answer === 'owner_full' || answer === 'store_full')
      return { ok: false, reason: answer, held: Number(a), retryAfterMs: Math.max(0, Number(b)) };
    if (answer !== 'ok') throw unreadable('create');
    // Confirmed before anyone hears of it (written now, ahead of the answer; the renewals confirm it again should
    // this get lost): a lapsed task left unconfirmed is removed as refused, not re-driven (redis-scripts.ts).
    this.redis.run((c) => c.hdel(this.keys.taskKey(task.taskId), 'unconfirmed')).catch(() => undefined);
    return { ok: true, record: createdRecord(task, holder, a, leaseMs) };
  }

  /** One creation script with its deadline; a creation that got no answer is refused, and removed should it exist. */
  private async createOnce(task: NewTask, holder: string, leaseMs: number): Promise<[string, number, number]> {
    const body = bodyOf({
      status: 'working',
      pollIntervalMs: task.pollIntervalMs,
      work: task.work,
      ...(task.statusMessage !== undefined && { statusMessage: task.statusMessage }),
    });
    const sentAt = this.clock.now();
    const deadline = this.clock.deadlineAt(sentAt + this.settings.commandTimeoutMs);
    if (deadline === undefined) throw this.redis.unavailable(new Error('it has not answered yet'));
    const keys = [this.keys.taskKey(task.taskId), ...this.keys.ownerKeys(task.owner), this.keys.all, this.keys.leases];
    const { maxPerOwner, maxTotal } = this.bounds;
    let reply: [string, number, number];
    try {
      reply = await this.triple((c) =>
        c.taskCreate(
          ...keys,
          task.taskId,
          task.owner,
          body,
          task.ttlMs,
          leaseMs,
          holder,
          maxPerOwner,
          maxTotal,
          deadline,
          task.pollIntervalMs,
          task.statusMessage ?? '',
        ),
      );
    } catch (error) {
      this.refused.add({ taskId: task.taskId, owner: task.owner, until: Date.now() + task.ttlMs });
      throw error;
    }
    const now = Number(reply[1]);
    if ((reply[0] === 'ok' || reply[0] === 'late') && !Number.isSafeInteger(now)) throw unreadable('create');
    if (reply[0] === 'ok' || reply[0] === 'late') this.clock.observe(sentAt, now);
    return [reply[0], now, Number(reply[2])];
  }

  async get(taskId: string, owner: string): Promise<TaskRecord | undefined> {
    const record = await this.read(taskId);
    return record?.owner === owner ? record : undefined;
  }

  /** One page: a range of the owner's index by creation, never the whole of it (redis-scripts.ts LIST_PAGE_LUA). */
  async list(owner: string, cursor: string | undefined, limit: number): Promise<ListPage | 'bad_cursor'> {
    const after = cursor === undefined ? undefined : decodeListCursor(cursor);
    if (after === null) return 'bad_cursor';
    const from = after ? [after.createdAt, after.taskId] : ['+inf', ''];
    const reply = await this.run((c) => c.taskListPage(...this.keys.ownerKeys(owner), ...from, Math.max(1, limit), this.keys.task));
    if (!Array.isArray(reply) || reply.length < 3) throw unreadable('list');
    const [more, lastAt, lastId, ...rows] = reply as unknown[];
    const tasks = recordsOfRows(rows, 'list').filter((r) => r.owner === owner);
    if (more !== '1') return { tasks };
    const next = decodeListCursor(encodeListCursor({ createdAt: Number(lastAt), taskId: String(lastId) }));
    if (!next) throw unreadable('list');
    return { tasks, nextCursor: encodeListCursor(next) };
  }

  update(taskId: string, change: TaskChange, runner?: string): Promise<UpdateOutcome> {
    return this.change(
      taskId,
      undefined,
      (record) => {
        const terminal = change.status === 'completed' || change.status === 'failed';
        return {
          status: change.status,
          pollIntervalMs: record.pollIntervalMs,
          work: record.work,
          ...(change.statusMessage !== undefined && { statusMessage: change.statusMessage }),
          ...(change.status === 'input_required' && { inputRequests: change.inputRequests }),
          ...(terminal && { outcome: change.outcome }),
        };
      },
      runner,
    );
  }

  async cancel(taskId: string, owner: string, statusMessage: string): Promise<CancelOutcome> {
    return ownersOutcome(
      await this.change(taskId, owner, (record) => ({ status: 'cancelled', statusMessage, pollIntervalMs: record.pollIntervalMs, work: record.work })),
    );
  }

  async respond(taskId: string, owner: string, inputResponses: JsonObject): Promise<CancelOutcome> {
    const outcome = await this.change(taskId, owner, (record) => {
      const asked = record.status === 'input_required' ? record.inputRequests : undefined;
      const fresh = Object.entries(inputResponses).filter(([key]) => asked !== undefined && Object.hasOwn(asked, key));
      if (fresh.length === 0) return undefined;
      return { ...record, inputResponses: { ...record.inputResponses, ...Object.fromEntries(fresh) } };
    });
    return ownersOutcome(outcome);
  }

  renew(taskIds: readonly string[], holder: string, leaseMs: number): Promise<readonly HeartbeatOutcome[]> {
    return this.leases.renew(taskIds, holder, leaseMs);
  }

  claimLapsed(holder: string, leaseMs: number, max: number): Promise<readonly TaskRecord[]> {
    return this.leases.claimLapsed(holder, leaseMs, max);
  }

  watch(taskId: string, watcher: TaskWatcher): () => void {
    return this.watchers.watch(taskId, watcher);
  }

  async count(owner?: string): Promise<number> {
    const key = owner === undefined ? this.keys.all : this.keys.ownerKeys(owner)[1];
    const counted = Number(await this.run((c) => c.taskCountLive(key)));
    if (!Number.isSafeInteger(counted) || counted < 0) throw unreadable('count');
    return counted;
  }

  /** Resolves true once Redis answers (a start-up check; no operation needs it), false after `timeoutMs`. */
  whenReady(timeoutMs?: number): Promise<boolean> {
    return this.redis.whenReady(timeoutMs);
  }

  async close(): Promise<void> {
    this.watchers.close();
    await this.refused.flush();
    this.refused.close();
    await this.redis.close();
  }

  /** The record under `taskId` whoever owns it (the runner's and the watchers' read), or undefined. */
  async read(taskId: string): Promise<TaskRecord | undefined> {
    return recordOf(taskId, await this.run((c) => c.hgetall(this.keys.taskKey(taskId))));
  }

  /** Creations refused after they were sent whose removal Redis has not confirmed yet. */
  get refusedPending(): number {
    return this.refused.size;
  }

  /** A compare-and-set loop: `next` computes the body from the record read (undefined: nothing to write). */
  private async change(
    taskId: string,
    owner: string | undefined,
    next: (record: TaskRecord) => RecordBody | undefined,
    runner?: string,
  ): Promise<UpdateOutcome> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const record = await this.read(taskId);
      if (!record || (owner !== undefined && record.owner !== owner)) return { ok: false, reason: 'unknown' };
      if (isTerminal(record.status)) return { ok: false, reason: 'terminal', record };
      const body = next(record);
      if (!body) return { ok: true, record };
      const ended = isTerminal(body.status);
      const [answer, revision, at] = await this.triple((c) =>
        c.taskSetIfRev(
          this.keys.taskKey(taskId),
          this.keys.leases,
          String(record.revision),
          bodyOf(body),
          body.status,
          taskId,
          this.keys.channel,
          ended ? '1' : '0',
          runner ?? '',
          body.statusMessage !== undefined ? '1' : '0',
          body.statusMessage ?? '',
        ),
      );
      if (answer === 'unknown' || answer === 'lost') return { ok: false, reason: answer };
      if (answer === 'conflict') continue;
      if (answer !== 'ok') throw unreadable('change');
      const { lease, statusMessage: _m, outcome: _o, inputRequests: _i, inputResponses: _r, ...kept } = record;
      return { ok: true, record: { ...kept, ...body, ...(!ended && lease && { lease }), revision: Number(revision), lastUpdatedAt: Number(at) } };
    }
    throw new TaskStoreError('busy', 'The task changed too often to be updated; try again.');
  }

  /** A refused creation's removal (refused-creations.ts): resolves once Redis answered it. */
  private async forget(refused: RefusedCreation): Promise<void> {
    const keys = [this.keys.taskKey(refused.taskId), ...this.keys.ownerKeys(refused.owner), this.keys.all, this.keys.leases];
    await this.run((c) => c.taskForget(...keys, refused.taskId, this.keys.channel));
  }

  /**
   * Readings of Redis's clock for the creations' deadlines: three at each connection (the quickest bounds it
   * tightest), and one before a creation that finds none yet. Creations, renewals and claims read it too.
   */
  private async calibrate(readings = 1): Promise<void> {
    for (let i = 0; i < readings || !this.clock.known; i++) {
      const sentAt = this.clock.now();
      const reply: unknown = await this.run((c) => c.time());
      if (!Array.isArray(reply) || reply.length !== 2) throw unreadable('time');
      this.clock.observe(sentAt, Number(reply[0]) * 1000 + Math.floor(Number(reply[1]) / 1000));
    }
  }

  /** A script's three-part answer; anything else from Redis is garbage, never destructured. */
  private async triple(command: (client: TaskRedis) => Promise<unknown>): Promise<[string, number, number]> {
    const reply: unknown = await this.run(command);
    if (!Array.isArray(reply) || reply.length !== 3 || typeof reply[0] !== 'string') throw unreadable('script');
    return reply as [string, number, number];
  }

  /** One Redis round trip within commandTimeoutMs (redis-connection.ts). */
  private run<T>(command: (client: TaskRedis) => Promise<T>): Promise<T> {
    return this.redis.run(command);
  }
}
