/**
 * The task store: where a task's record lives between the request that
 * created it and the requests that read, await and cancel it (MCP tasks,
 * 2025-11-25 core and the 2026-07-28 extension `io.modelcontextprotocol/tasks`;
 * docs/translation.md, "Tasks").
 *
 * Direction-neutral: the store knows owners, statuses, outcomes and leases,
 * never MCP or OXP shapes. A record's `work` (what to run, for a re-drive)
 * and `outcome` are JSON the lifecycle (lifecycle.ts) writes and reads.
 *
 * Two implementations: memory-store.ts (this process; the default) and a
 * Redis one (store.redis; every replica sharing the Redis sees every task).
 * Both must pass the same contract, test/helpers/task-store-contract.ts.
 *
 * The contract, in short:
 * - Ownership. Every read and every change made on a caller's behalf names
 *   the owner (an opaque key the face derives from the principal, records.ts
 *   `ownerKey`); a task of another owner is answered exactly as an unknown
 *   id (`undefined` / `unknown`), so nothing tells that it exists.
 * - Lifecycle. working ⇄ input_required → completed | failed | cancelled.
 *   A terminal record never changes again (a late completion after a cancel
 *   is dropped, the spec's "MUST remain cancelled").
 * - Expiry. A record is deleted `ttlMs` after its creation, whatever its
 *   status; it then answers as unknown. Expiry is the store's job (a timer,
 *   or Redis key expiry), never a reader's.
 * - Bounds. `create` refuses, with a reason, past `maxPerOwner` records held
 *   by one owner or `maxTotal` in all (expired records do not count).
 * - Leases. The replica running a task's work holds its lease and renews it
 *   (`renew`, every task it runs in one step) well inside `leaseMs`. A task
 *   whose lease lapsed while it is not terminal was orphaned (its runner
 *   died): `claimLapsed` hands it to another replica, counting a re-drive,
 *   which sends the same OXP call again (the same `call_id`: idempotent
 *   upstream). The runner's own changes name it (`update`'s `runner`): one
 *   that lost its lease writes nothing more.
 * - Waking. `watch` calls back on every change of a task (status, message,
 *   cancellation, expiry) made by any replica, so `tasks/result`, status
 *   notifications and the runner (to see a cancel made elsewhere) wait
 *   without polling. A callback may be coalesced or late, never lost for the
 *   last change: after it fires, `get` shows at least that change.
 */

import type { StoreStateTracker } from './store-state.js';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

export const TERMINAL_STATUSES: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

export const isTerminal = (status: TaskStatus): boolean => TERMINAL_STATUSES.has(status);

/** A JSON object as the store keeps it: the store serialises it and never looks inside. */
export type JsonObject = { readonly [key: string]: unknown };

/**
 * How a task ended, in protocol-neutral terms. `result`: the underlying
 * request's result (a `CallToolResult` of the task's revision); `error`: the
 * JSON-RPC error the underlying request would have answered.
 */
export type TaskOutcome =
  | { readonly kind: 'result'; readonly result: JsonObject }
  | { readonly kind: 'error'; readonly error: { readonly code: number; readonly message: string; readonly data?: unknown } };

export interface TaskLease {
  /** The replica running the work (a random id per process, lifecycle.ts). */
  readonly holder: string;
  /** Epoch ms after which the lease has lapsed unless renewed. */
  readonly until: number;
}

export interface TaskRecord {
  /** At least 128 random bits, URL-safe (ids.ts); also the store key. */
  readonly taskId: string;
  /** Opaque owner key (records.ts `ownerKey`): only it may read or change the task. */
  readonly owner: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  /** Epoch ms. */
  readonly createdAt: number;
  /** Epoch ms of the last change of status or message. */
  readonly lastUpdatedAt: number;
  /** Lifetime from `createdAt`; the record is deleted after it. Never unlimited. */
  readonly ttlMs: number;
  /** Suggested polling interval, ms. */
  readonly pollIntervalMs: number;
  /** What the task runs, for a re-drive (records.ts `ForwardWork`); bounded by the lifecycle. */
  readonly work: JsonObject;
  /** Set exactly when the status is terminal (a cancelled task has none unless the work ended first). */
  readonly outcome?: TaskOutcome;
  /** Set while `input_required`: what the requestor must answer (revision-specific JSON, lifecycle.ts). */
  readonly inputRequests?: JsonObject;
  /** The requestor's answers so far to `inputRequests`, by key (`respond`); cleared with them when work resumes. */
  readonly inputResponses?: JsonObject;
  /** Absent once terminal. */
  readonly lease?: TaskLease;
  /** Times another replica took the task over after its runner's lease lapsed. */
  readonly redrives: number;
  /** Increases with every change: a watcher compares it to know whether it missed one. */
  readonly revision: number;
}

export interface NewTask {
  readonly taskId: string;
  readonly owner: string;
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  readonly work: JsonObject;
  readonly statusMessage?: string;
}

export type CreateOutcome =
  | { readonly ok: true; readonly record: TaskRecord }
  | {
      readonly ok: false;
      /** `owner_full`: this owner holds `maxPerOwner` records; `store_full`: the store holds `maxTotal`; `duplicate_id`: never with ids.ts ids. */
      readonly reason: 'owner_full' | 'store_full' | 'duplicate_id';
      /** Held records of the owner (owner_full) or in all (store_full). */
      readonly held: number;
      /** Ms until the earliest of those records expires: when to try again. */
      readonly retryAfterMs: number;
    };

/** A change the runner makes. Status changes are checked against the lifecycle; a terminal task takes none. */
export type TaskChange =
  | { readonly status: 'working'; readonly statusMessage?: string }
  | { readonly status: 'input_required'; readonly statusMessage?: string; readonly inputRequests: JsonObject }
  | { readonly status: 'completed' | 'failed'; readonly statusMessage?: string; readonly outcome: TaskOutcome };

/** The owner's change (cancel, respond): `unknown`: no such task (expired, or another owner's); `terminal`: it had already ended (`record` says how). */
export type CancelOutcome =
  | { readonly ok: true; readonly record: TaskRecord }
  | { readonly ok: false; readonly reason: 'unknown' }
  | { readonly ok: false; readonly reason: 'terminal'; readonly record: TaskRecord };

/** The runner's change, which may also be `lost`: another replica holds the lease now. */
export type UpdateOutcome = CancelOutcome | { readonly ok: false; readonly reason: 'lost' };

/** An owner's change through a path shared with the runner's: 'lost' cannot come of it (no runner named). */
export const ownersOutcome = (outcome: UpdateOutcome): CancelOutcome => (outcome.ok || outcome.reason !== 'lost' ? outcome : { ok: false, reason: 'unknown' });

/** The record a creation makes at `now` (the store's clock: Redis's for the Redis store), from what was sent. */
export function createdRecord(task: NewTask, holder: string, now: number, leaseMs: number): TaskRecord {
  return {
    taskId: task.taskId,
    owner: task.owner,
    status: 'working',
    ...(task.statusMessage !== undefined && { statusMessage: task.statusMessage }),
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: task.ttlMs,
    pollIntervalMs: task.pollIntervalMs,
    work: task.work,
    lease: { holder, until: now + leaseMs },
    redrives: 0,
    revision: 1,
  };
}

export interface ListPage {
  readonly tasks: readonly TaskRecord[];
  /** Opaque; absent on the last page. */
  readonly nextCursor?: string;
}

export type HeartbeatOutcome =
  /** Still ours, renewed. */
  | 'held'
  /** Another replica holds it now (we were thought dead): stop without writing an outcome. */
  | 'lost'
  /** Terminal (cancelled, or ended elsewhere) or gone (expired): stop. */
  | 'ended';

export interface TaskStoreBounds {
  /** Records one owner may hold at once (any status, until they expire). */
  readonly maxPerOwner: number;
  /** Records the store holds at once. */
  readonly maxTotal: number;
}

/** Called after a change to a watched task; `undefined` once it expired. Must not throw. */
export type TaskWatcher = (record: TaskRecord | undefined) => void;

export interface TaskStore {
  readonly kind: 'memory' | 'redis';
  readonly bounds: TaskStoreBounds;

  /**
   * Stores a new `working` task, leased to `holder` for `leaseMs`. Resolves
   * only once a `get` from any replica would find it (2026-07-28: a server
   * MUST NOT answer `CreateTaskResult` before that).
   */
  create(task: NewTask, holder: string, leaseMs: number): Promise<CreateOutcome>;

  /** The owner's task, or `undefined` for an unknown, expired or foreign id. */
  get(taskId: string, owner: string): Promise<TaskRecord | undefined>;

  /**
   * The owner's tasks, newest first, at most `limit` per page. `cursor` is a
   * `nextCursor` from an earlier page of the same owner; any other value
   * resolves 'bad_cursor' (the face answers -32602).
   */
  list(owner: string, cursor: string | undefined, limit: number): Promise<ListPage | 'bad_cursor'>;

  /**
   * The runner's change (no owner check: the runner acts for the owner). With `runner`, written only while that
   * replica holds the task's lease ('lost' otherwise): a runner taken over writes no end over the re-drive's.
   */
  update(taskId: string, change: TaskChange, runner?: string): Promise<UpdateOutcome>;

  /**
   * The owner's cancel: a non-terminal task becomes `cancelled` at once (the
   * 2025-11-25 answer must show it) and its watchers, the runner's included,
   * are woken so the work is aborted wherever it runs.
   */
  cancel(taskId: string, owner: string, statusMessage: string): Promise<CancelOutcome>;

  /**
   * The owner's answers to an `input_required` task's requests (2026-07-28
   * `tasks/update`): merged into `inputResponses` (keys not asked for are
   * dropped), and the watchers, the runner's included, are woken. `unknown`
   * for a foreign id; `terminal` for an ended task; an `ok` with nothing new
   * when the task is not waiting for input (the spec says to ignore them).
   */
  respond(taskId: string, owner: string, inputResponses: JsonObject): Promise<CancelOutcome>;

  /** Renews `holder`'s leases on the tasks it runs, in one step; answers each task's state, in order. */
  renew(taskIds: readonly string[], holder: string, leaseMs: number): Promise<readonly HeartbeatOutcome[]>;

  /**
   * Takes over, for `holder`, up to `max` non-terminal tasks whose lease has
   * lapsed, each leased for `leaseMs` with `redrives` counted. Two replicas
   * claiming at once never get the same task.
   */
  claimLapsed(holder: string, leaseMs: number, max: number): Promise<readonly TaskRecord[]>;

  /** Calls `watcher` after every change of `taskId` until the returned function is called. */
  watch(taskId: string, watcher: TaskWatcher): () => void;

  /** Records held: by `owner`, or in all. */
  count(owner?: string): Promise<number>;

  /** A store shared by replicas: whether it answers now, and its changes (store-state.ts). */
  readonly availability?: StoreStateTracker;

  /** Stops timers and connections; records of a memory store are dropped. */
  close(): Promise<void>;
}
