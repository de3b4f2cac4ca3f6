/**
 * The task store of one process (the default): records in a Map, expired by
 * a sweep and checked again on every read, so an expired task is never
 * served even between sweeps. Tasks live and die with the process; with
 * several replicas each holds its own (store.redis shares them).
 *
 * Records are immutable values replaced on every change; callers must not
 * mutate what they pass in or get back (the Redis store serialises, this one
 * does not, to keep a large result from being copied).
 */
import { decodeListCursor, encodeListCursor } from './list-cursor.js';
import { OwnerIndex } from './owner-index.js';
import {
  createdRecord,
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

/** How often expired records are dropped when nobody reads them. */
const SWEEP_MS = 5_000;

export class MemoryTaskStore implements TaskStore {
  readonly kind = 'memory';
  private readonly records = new Map<string, TaskRecord>();
  private readonly byOwner = new Map<string, OwnerIndex>();
  private readonly watchers = new Map<string, Set<TaskWatcher>>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    readonly bounds: TaskStoreBounds,
    private readonly now: () => number = Date.now,
  ) {
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  async create(task: NewTask, holder: string, leaseMs: number): Promise<CreateOutcome> {
    const now = this.now();
    if (this.live(task.taskId, now)) return { ok: false, reason: 'duplicate_id', held: 0, retryAfterMs: 0 };
    // The owner's count is its index's size; only at the bound are its expired records looked for (a refusal's cost).
    if ((this.byOwner.get(task.owner)?.size ?? 0) >= this.bounds.maxPerOwner) {
      const owned = this.ownedBy(task.owner, now);
      if (owned.length >= this.bounds.maxPerOwner)
        return { ok: false, reason: 'owner_full', held: owned.length, retryAfterMs: this.untilFirstExpiry(owned, now) };
    }
    if (this.records.size >= this.bounds.maxTotal) {
      this.sweep();
      if (this.records.size >= this.bounds.maxTotal) {
        return { ok: false, reason: 'store_full', held: this.records.size, retryAfterMs: this.untilFirstExpiry([...this.records.values()], now) };
      }
    }
    const record = createdRecord(task, holder, now, leaseMs);
    this.records.set(record.taskId, record);
    let index = this.byOwner.get(record.owner);
    if (!index) this.byOwner.set(record.owner, (index = new OwnerIndex()));
    index.add(record);
    return { ok: true, record };
  }

  async get(taskId: string, owner: string): Promise<TaskRecord | undefined> {
    const record = this.live(taskId, this.now());
    return record?.owner === owner ? record : undefined;
  }

  /** A page: a slice of the owner's sorted index (owner-index.ts), its expired records skipped (and dropped). */
  async list(owner: string, cursor: string | undefined, limit: number): Promise<ListPage | 'bad_cursor'> {
    const after = cursor === undefined ? undefined : decodeListCursor(cursor);
    if (after === null) return 'bad_cursor';
    const index = this.byOwner.get(owner);
    const now = this.now();
    const tasks: TaskRecord[] = [];
    let from = after;
    let more = false;
    while (index && tasks.length < Math.max(1, limit)) {
      const page = index.page(from, Math.max(1, limit) - tasks.length);
      for (const at of page.positions) {
        const record = this.live(at.taskId, now);
        if (record) tasks.push(record);
      }
      more = page.more;
      if (!more || page.positions.length === 0) break;
      from = page.positions[page.positions.length - 1];
    }
    const last = tasks[tasks.length - 1];
    return more && last ? { tasks, nextCursor: encodeListCursor(last) } : { tasks };
  }

  async update(taskId: string, change: TaskChange, runner?: string): Promise<UpdateOutcome> {
    const record = this.live(taskId, this.now());
    if (!record) return { ok: false, reason: 'unknown' };
    if (isTerminal(record.status)) return { ok: false, reason: 'terminal', record };
    if (runner !== undefined && record.lease?.holder !== runner) return { ok: false, reason: 'lost' };
    const terminal = change.status === 'completed' || change.status === 'failed';
    const next: TaskRecord = {
      ...this.withoutPhaseFields(record),
      status: change.status,
      ...(change.statusMessage !== undefined && { statusMessage: change.statusMessage }),
      ...(change.status === 'input_required' && { inputRequests: change.inputRequests }),
      ...(terminal && { outcome: change.outcome }),
      ...(!terminal && record.lease && { lease: record.lease }),
      lastUpdatedAt: this.now(),
      revision: record.revision + 1,
    };
    return { ok: true, record: this.replace(next) };
  }

  async cancel(taskId: string, owner: string, statusMessage: string): Promise<CancelOutcome> {
    const record = await this.get(taskId, owner);
    if (!record) return { ok: false, reason: 'unknown' };
    if (isTerminal(record.status)) return { ok: false, reason: 'terminal', record };
    const next: TaskRecord = {
      ...this.withoutPhaseFields(record),
      status: 'cancelled',
      statusMessage,
      lastUpdatedAt: this.now(),
      revision: record.revision + 1,
    };
    return { ok: true, record: this.replace(next) };
  }

  async respond(taskId: string, owner: string, inputResponses: JsonObject): Promise<CancelOutcome> {
    const record = await this.get(taskId, owner);
    if (!record) return { ok: false, reason: 'unknown' };
    if (isTerminal(record.status)) return { ok: false, reason: 'terminal', record };
    const asked = record.status === 'input_required' ? record.inputRequests : undefined;
    const fresh = Object.entries(inputResponses).filter(([key]) => asked !== undefined && Object.hasOwn(asked, key));
    if (fresh.length === 0) return { ok: true, record };
    const next: TaskRecord = { ...record, inputResponses: { ...record.inputResponses, ...Object.fromEntries(fresh) }, revision: record.revision + 1 };
    return { ok: true, record: this.replace(next) };
  }

  async renew(taskIds: readonly string[], holder: string, leaseMs: number): Promise<readonly HeartbeatOutcome[]> {
    const now = this.now();
    return taskIds.map((taskId): HeartbeatOutcome => {
      const record = this.live(taskId, now);
      if (!record || isTerminal(record.status)) return 'ended';
      if (record.lease?.holder !== holder) return 'lost';
      // A renewal is no change a watcher needs to see: replaced without a revision or a wake-up.
      this.records.set(taskId, { ...record, lease: { holder, until: now + leaseMs } });
      return 'held';
    });
  }

  async claimLapsed(holder: string, leaseMs: number, max: number): Promise<readonly TaskRecord[]> {
    const now = this.now();
    const claimed: TaskRecord[] = [];
    for (const record of this.records.values()) {
      if (claimed.length >= max) break;
      if (isTerminal(record.status) || this.expired(record, now) || (record.lease && record.lease.until > now)) continue;
      claimed.push(this.replace({ ...record, lease: { holder, until: now + leaseMs }, redrives: record.redrives + 1, revision: record.revision + 1 }));
    }
    return claimed;
  }

  watch(taskId: string, watcher: TaskWatcher): () => void {
    let set = this.watchers.get(taskId);
    if (!set) this.watchers.set(taskId, (set = new Set()));
    set.add(watcher);
    return () => {
      const current = this.watchers.get(taskId);
      current?.delete(watcher);
      if (current?.size === 0) this.watchers.delete(taskId);
    };
  }

  /** Watchers (tasks/result, status notifications, runners) registered now: hostile tests check none is left behind. */
  get watched(): number {
    let n = 0;
    for (const set of this.watchers.values()) n += set.size;
    return n;
  }

  async count(owner?: string): Promise<number> {
    if (owner === undefined) return this.records.size;
    return (this.byOwner.get(owner)?.size ?? 0) === 0 ? 0 : this.ownedBy(owner, this.now()).length;
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.records.clear();
    this.byOwner.clear();
    this.watchers.clear();
  }

  /** Drops every expired record and wakes its watchers with `undefined`. */
  sweep(): void {
    const now = this.now();
    for (const record of this.records.values()) if (this.expired(record, now)) this.drop(record);
  }

  private expired(record: TaskRecord, now: number): boolean {
    return now >= record.createdAt + record.ttlMs;
  }

  /** The record if it exists and has not expired (an expired one is dropped here). */
  private live(taskId: string, now: number): TaskRecord | undefined {
    const record = this.records.get(taskId);
    if (record && this.expired(record, now)) {
      this.drop(record);
      return undefined;
    }
    return record;
  }

  /** Every live record of the owner: a walk of its index, for a bound's refusal and a count, never for a page. */
  private ownedBy(owner: string, now: number): TaskRecord[] {
    const out: TaskRecord[] = [];
    for (const at of [...(this.byOwner.get(owner)?.all() ?? [])]) {
      const record = this.live(at.taskId, now);
      if (record) out.push(record);
    }
    return out;
  }

  private untilFirstExpiry(records: readonly TaskRecord[], now: number): number {
    let first = Infinity;
    for (const r of records) first = Math.min(first, r.createdAt + r.ttlMs - now);
    return Number.isFinite(first) ? Math.max(0, first) : 0;
  }

  /** The record without what belongs to one phase only (input requests, lease, outcome). */
  private withoutPhaseFields(record: TaskRecord): TaskRecord {
    const { inputRequests: _i, inputResponses: _r, lease: _l, outcome: _o, statusMessage: _m, ...rest } = record;
    return rest;
  }

  private replace(next: TaskRecord): TaskRecord {
    this.records.set(next.taskId, next);
    this.wake(next.taskId, next);
    return next;
  }

  private drop(record: TaskRecord): void {
    this.records.delete(record.taskId);
    const index = this.byOwner.get(record.owner);
    index?.delete(record);
    if (index?.size === 0) this.byOwner.delete(record.owner);
    this.wake(record.taskId, undefined);
  }

  private wake(taskId: string, record: TaskRecord | undefined): void {
    const set = this.watchers.get(taskId);
    if (!set) return;
    // After the change is visible, and outside the caller's stack: a watcher may read or change the store.
    for (const watcher of [...set]) queueMicrotask(() => watcher(record));
  }
}
