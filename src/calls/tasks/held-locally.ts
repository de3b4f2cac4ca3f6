/**
 * The Redis task store, and what this replica holds when Redis does not answer (stopped, frozen, unreachable):
 * tasks are answered from what each replica holds, as docs/production.md says.
 *
 * - Every record this replica created, ran, changed or read is kept here (bounded, newest kept), so a `tasks/get`,
 *   `tasks/result` or `tasks/list` during an outage answers with the last state this replica saw — current for the
 *   tasks it runs, possibly stale for others'.
 * - The runner's changes (a completion, above all) are applied here at once and written to Redis once it answers
 *   again (at once when it does, then every second), the last change of each task: nothing is lost. No replica takes
 *   a lapsed lease over until a grace after Redis returns (open-task-store.ts), so the runner writes first.
 * - A caller's cancel needs Redis (TaskStoreError 'unavailable' meanwhile): a cancel answered `cancelled` must be
 *   final, and one taken here could lose to a re-drive whose end is written before this replica's write lands (a
 *   replica cut off from Redis while the others reach it cannot know).
 * - A heartbeat that cannot reach Redis answers 'held' (the work goes on through an outage; if the lease lapses in
 *   Redis meanwhile, another replica may re-drive it with the same call_id: idempotent upstream).
 * - A new task needs the shared store: `create` fails (TaskStoreError 'unavailable'), and the front answers so.
 */
import { LRUCache } from 'lru-cache';
import { pageOf } from './list-cursor.js';
import type { RedisTaskStore } from './redis-store.js';
import { TaskStoreError } from './redis-record.js';
import {
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
  type TaskWatcher,
  type UpdateOutcome,
} from './store.js';

/** Records kept for an outage; beyond it the least recently seen go (a running task is seen at every heartbeat). */
const HELD_RECORDS = 10_000;
/** How often writes made during an outage are tried again. */
const RETRY_MS = 1_000;

/** A runner's change waiting for Redis. */
type Write = { change: TaskChange; runner?: string };

const unavailable = (error: unknown): boolean => error instanceof TaskStoreError && error.code === 'unavailable';

export class HeldLocallyTaskStore implements TaskStore {
  readonly kind = 'redis';
  readonly bounds: RedisTaskStore['bounds'];
  /** Redis's state as its store finds it: held records answer while it is down (the command logs each change). */
  readonly availability: RedisTaskStore['availability'];
  private readonly held = new LRUCache<string, TaskRecord>({ max: HELD_RECORDS });
  private readonly pending = new Map<string, Write>();
  private readonly localWatchers = new Map<string, Set<TaskWatcher>>();
  private retry: NodeJS.Timeout | undefined;

  constructor(private readonly redis: RedisTaskStore) {
    this.bounds = redis.bounds;
    this.availability = redis.availability;
    this.availability.onChange((state) => {
      if (state.available && this.pending.size > 0) void this.flush();
    });
  }

  async create(task: NewTask, holder: string, leaseMs: number): Promise<CreateOutcome> {
    const outcome = await this.redis.create(task, holder, leaseMs);
    if (outcome.ok) this.keep(outcome.record);
    return outcome;
  }

  async get(taskId: string, owner: string): Promise<TaskRecord | undefined> {
    const local = this.pendingRecord(taskId);
    if (local) return local.owner === owner ? local : undefined;
    return this.orHeld(
      async () => this.keep(await this.redis.get(taskId, owner)),
      () => {
        const record = this.held.get(taskId);
        return record?.owner === owner && !this.expired(record) ? record : undefined;
      },
    );
  }

  list(owner: string, cursor: string | undefined, limit: number): Promise<ListPage | 'bad_cursor'> {
    return this.orHeld(
      () => this.redis.list(owner, cursor, limit),
      () =>
        pageOf(
          [...this.held.values()].filter((r) => r.owner === owner && !this.expired(r)),
          cursor,
          limit,
        ),
    );
  }

  update(taskId: string, change: TaskChange, runner?: string): Promise<UpdateOutcome> {
    return this.write(taskId, { change, ...(runner !== undefined && { runner }) });
  }

  /** Through Redis only, after this replica's own waiting change of that task (the class comment says why). */
  async cancel(taskId: string, owner: string, statusMessage: string): Promise<CancelOutcome> {
    if (this.pending.has(taskId)) await this.flush();
    try {
      const outcome = ownersOutcome(await this.redis.cancel(taskId, owner, statusMessage));
      if (outcome.ok) this.keep(outcome.record);
      return outcome;
    } catch (error) {
      if (!unavailable(error)) throw error;
      throw new TaskStoreError('unavailable', 'The task store does not answer: a cancel is taken once it does, so that it stands.');
    }
  }

  async respond(taskId: string, owner: string, inputResponses: JsonObject): Promise<CancelOutcome> {
    const outcome = await this.redis.respond(taskId, owner, inputResponses);
    if (outcome.ok) this.keep(outcome.record);
    return outcome;
  }

  /** Tasks with a change waiting to be written answer from it; the others renew through Redis, or hold during an outage. */
  async renew(taskIds: readonly string[], holder: string, leaseMs: number): Promise<readonly HeartbeatOutcome[]> {
    const local = (taskId: string): HeartbeatOutcome => (isTerminal(this.pendingRecord(taskId)?.status ?? 'working') ? 'ended' : 'held');
    const shared = taskIds.filter((taskId) => !this.pending.has(taskId));
    const renewed = await this.orHeld(
      () => this.redis.renew(shared, holder, leaseMs),
      () => shared.map(() => 'held' as const),
    );
    const byId = new Map(shared.map((taskId, i) => [taskId, renewed[i] ?? 'held']));
    return taskIds.map((taskId) => byId.get(taskId) ?? local(taskId));
  }

  claimLapsed(holder: string, leaseMs: number, max: number): Promise<readonly TaskRecord[]> {
    return this.orHeld(
      async () => (await this.redis.claimLapsed(holder, leaseMs, max)).map((r) => this.keep(r)!),
      () => [],
    );
  }

  watch(taskId: string, watcher: TaskWatcher): () => void {
    const stop = this.redis.watch(taskId, watcher);
    let set = this.localWatchers.get(taskId);
    if (!set) this.localWatchers.set(taskId, (set = new Set()));
    set.add(watcher);
    return () => {
      stop();
      set.delete(watcher);
      if (set.size === 0) this.localWatchers.delete(taskId);
    };
  }

  count(owner?: string): Promise<number> {
    return this.orHeld(
      () => this.redis.count(owner),
      () => [...this.held.values()].filter((r) => (owner === undefined || r.owner === owner) && !this.expired(r)).length,
    );
  }

  whenReady(timeoutMs?: number): Promise<boolean> {
    return this.redis.whenReady(timeoutMs);
  }

  async close(): Promise<void> {
    clearTimeout(this.retry);
    await this.flush();
    await this.redis.close();
  }

  /** Writes made during an outage, tried now: each task's last one; those Redis still cannot take stay. */
  async flush(): Promise<void> {
    for (const [taskId, write] of [...this.pending]) {
      try {
        const outcome = await this.redis.update(taskId, write.change, write.runner);
        if (this.pending.get(taskId) === write) this.pending.delete(taskId);
        if (outcome.ok) this.keep(outcome.record);
      } catch (error) {
        if (!unavailable(error)) this.pending.delete(taskId);
        return;
      }
    }
  }

  /** A runner's change through Redis; during an outage applied to the record held here (if any) and written later. */
  private async write(taskId: string, write: Write): Promise<UpdateOutcome> {
    if (!this.pending.has(taskId)) {
      try {
        const outcome = await this.redis.update(taskId, write.change, write.runner);
        if (outcome.ok) this.keep(outcome.record);
        return outcome;
      } catch (error) {
        if (!unavailable(error)) throw error;
      }
    }
    const before = this.pendingRecord(taskId) ?? this.held.get(taskId);
    const record = before && !this.expired(before) ? before : undefined;
    if (!record) throw new TaskStoreError('unavailable', 'The task store does not answer, and this replica holds no record of that task.');
    if (isTerminal(record.status)) return { ok: false, reason: 'terminal', record };
    const next = applied(record, write);
    this.pending.set(taskId, write);
    this.keep(next);
    for (const watcher of [...(this.localWatchers.get(taskId) ?? [])]) queueMicrotask(() => watcher(next));
    this.retry ??= setTimeout(() => void this.retryPending(), RETRY_MS).unref();
    return { ok: true, record: next };
  }

  private async retryPending(): Promise<void> {
    this.retry = undefined;
    await this.flush();
    if (this.pending.size > 0) this.retry = setTimeout(() => void this.retryPending(), RETRY_MS).unref();
  }

  private pendingRecord(taskId: string): TaskRecord | undefined {
    return this.pending.has(taskId) ? this.held.get(taskId) : undefined;
  }

  /** `ask` Redis; if it does not answer, `fallback` from what is held here. */
  private async orHeld<T>(ask: () => Promise<T>, fallback: () => T): Promise<T> {
    try {
      return await ask();
    } catch (error) {
      if (!unavailable(error)) throw error;
      return fallback();
    }
  }

  private keep(record: TaskRecord | undefined): TaskRecord | undefined {
    if (record) this.held.set(record.taskId, record);
    return record;
  }

  private expired(record: TaskRecord): boolean {
    return Date.now() >= record.createdAt + record.ttlMs;
  }
}

/** A change applied to a record held here, as the store would apply it. */
function applied(record: TaskRecord, write: Write): TaskRecord {
  const { inputRequests: _i, inputResponses: _r, lease, outcome: _o, statusMessage: _m, ...rest } = record;
  const base = { ...rest, lastUpdatedAt: Date.now(), revision: record.revision + 1 };
  const change = write.change;
  const terminal = change.status === 'completed' || change.status === 'failed';
  return {
    ...base,
    status: change.status,
    ...(change.statusMessage !== undefined && { statusMessage: change.statusMessage }),
    ...(change.status === 'input_required' && { inputRequests: change.inputRequests }),
    ...(terminal && { outcome: change.outcome }),
    ...(!terminal && lease && { lease }),
  };
}
