/**
 * Running a task's work, whatever direction the work goes: the replica that
 * created a task (or took it over) drives it here. Direction-neutral: the
 * work is a function the caller supplies; this module owns what every task
 * needs around it:
 *
 * - the lease: renewed while the work runs, so another replica re-drives the
 *   task only when this one died (store.ts, "Leases");
 * - cancellation wherever it was asked: a cancel, the task's expiry or the
 *   lease passing to another replica (all seen through the store's watch)
 *   abort the work's signal, which aborts the OXP request;
 * - input rounds: `askInput` moves the task to input_required and resolves
 *   with the requestor's answers (store `respond`, from any replica);
 * - the end: the outcome written once, bounded in size (a larger result ends
 *   the task failed, saying so), never over a terminal status.
 */
import { randomBytes } from 'node:crypto';
import type { CreateOutcome, JsonObject, NewTask, TaskOutcome, TaskRecord, TaskStatus, TaskStore } from './store.js';
import { isTerminal } from './store.js';
import { LeaseRenewal } from './lease-renewal.js';
import { JSONRPC_INTERNAL_ERROR } from '../../core/mcp-wire.js';

/** How a task's work ended. */
export interface TaskEnd {
  readonly status: 'completed' | 'failed';
  readonly outcome: TaskOutcome;
  readonly statusMessage?: string;
}

export interface TaskControl {
  readonly taskId: string;
  /** Aborted when the task is cancelled, expires, is taken over by another replica, or this process shuts down. */
  readonly signal: AbortSignal;
  /**
   * Moves the task to input_required with these requests, and resolves with the answers once every key has one
   * (then the task is working again). Rejects when the signal aborts.
   */
  askInput(inputRequests: JsonObject, statusMessage?: string): Promise<JsonObject>;
  /** Says what the working task is doing now (its statusMessage); written by this replica as its runner, never failing. */
  setStatusMessage(statusMessage: string): Promise<void>;
}

export interface LifecycleOptions {
  /** How long a lease lasts without renewal; renewed every third of it. */
  readonly leaseMs: number;
  /** Largest outcome kept, in JSON bytes. */
  readonly maxResultBytes: number;
  /** Times a task may be taken over after its runner's lease lapsed; the next take-over ends it failed instead. */
  readonly maxRedrives?: number;
  /** This replica's id in leases (random when not given). */
  readonly holder?: string;
}

export interface LifecycleHooks {
  /** A task this replica drives entered `status` (created tasks enter `working`). */
  onStatus?(status: TaskStatus): void;
  /** This replica took over a task whose runner's lease lapsed, and runs it again (`redrives` counts this one). */
  onRedrive?(record: TaskRecord): void;
  /** Another replica took over a task this replica was running: its work is stopped here, once. */
  onLeaseLost?(record: TaskRecord): void;
  /** A task taken over more than `maxRedrives` times: ended failed here instead of run again. */
  onGiveUp?(record: TaskRecord): void;
  /** The work threw (a bug): logged by the owner; the task ends failed. */
  onError?(taskId: string, error: unknown): void;
}

/** Re-drives of one task before it is given up, unless configured. */
const DEFAULT_MAX_REDRIVES = 3;

/** Why a task's signal was aborted: `cancelled` only ever by a caller's cancel. */
export class TaskStopped extends Error {
  constructor(readonly reason: 'cancelled' | 'expired' | 'taken_over' | 'shutdown') {
    super(`the task was stopped: ${reason}`);
  }
}

/** A task this replica drives: its work's controller, and the record as it was given (its work, for the hooks). */
interface Running {
  readonly abort: AbortController;
  readonly record: TaskRecord;
  lost: boolean;
}

export class TaskLifecycle {
  readonly holder: string;
  private readonly running = new Map<string, Running>();
  private readonly stopRedrives: (() => void)[] = [];
  private readonly renewal: LeaseRenewal;

  constructor(
    readonly store: TaskStore,
    private readonly options: LifecycleOptions,
    private readonly hooks: LifecycleHooks = {},
  ) {
    this.holder = options.holder ?? randomBytes(9).toString('base64url');
    this.renewal = new LeaseRenewal(
      store,
      this.holder,
      options.leaseMs,
      () => [...this.running.keys()],
      (taskId, state) => {
        const running = this.running.get(taskId);
        // Ended elsewhere: a cancel or the expiry, which the watch names; the work stops either way.
        if (running) this.stop(running, state === 'lost' ? 'taken_over' : 'cancelled');
      },
    );
  }

  /** Stores a new working task leased to this replica; `drive` then runs its work. */
  async create(task: NewTask): Promise<CreateOutcome> {
    const created = await this.store.create(task, this.holder, this.options.leaseMs);
    if (created.ok) this.hooks.onStatus?.('working');
    return created;
  }

  /** Tasks this replica is driving now. */
  get active(): number {
    return this.running.size;
  }

  /**
   * Runs `work` for a task this replica holds, until it ends or is stopped. `abort` is the work's own controller
   * (it may already be running, e.g. a call that became a task); it is aborted with a TaskStopped when the task is
   * stopped from outside. Resolves with the task's final record as this replica last saw it (undefined when it
   * expired).
   */
  async drive(task: TaskRecord, abort: AbortController, work: (control: TaskControl) => Promise<TaskEnd>): Promise<TaskRecord | undefined> {
    const { taskId } = task;
    const running: Running = { abort, record: task, lost: false };
    this.running.set(taskId, running);
    this.renewal.start();
    let seen: TaskRecord | undefined;
    const unwatch = this.store.watch(taskId, (record) => {
      seen = record;
      if (!record) this.stop(running, 'expired');
      else if (record.status === 'cancelled') this.stop(running, 'cancelled');
      else if (record.lease && record.lease.holder !== this.holder) this.stop(running, 'taken_over');
    });
    try {
      const end = await work(this.control(taskId, abort.signal)).catch((error: unknown): TaskEnd | undefined => {
        if (abort.signal.aborted) return undefined;
        this.hooks.onError?.(taskId, error);
        return { status: 'failed', statusMessage: 'The task failed inside the bridge.', outcome: internalError('The task failed inside the bridge.') };
      });
      return (await this.settle(running, end)) ?? seen;
    } finally {
      unwatch();
      this.running.delete(taskId);
      if (this.running.size === 0) this.renewal.stop();
    }
  }

  /**
   * Takes over, every `intervalMs`, the tasks whose runner stopped renewing its lease (it died), and drives each with
   * the work `resume` rebuilds from its record (the same call, the same call_id); a task taken over more than
   * maxRedrives times ends failed instead. For stores shared by replicas; returns the function that stops it.
   */
  redriveLapsed(intervalMs: number, resume: (record: TaskRecord) => ((control: TaskControl) => Promise<TaskEnd>) | undefined): () => void {
    let busy = false;
    const tick = async () => {
      if (busy) return;
      busy = true;
      try {
        for (const record of await this.store.claimLapsed(this.holder, this.options.leaseMs, 16)) this.takeOver(record, resume);
      } catch (error) {
        this.hooks.onError?.('(redrive)', error);
      } finally {
        busy = false;
      }
    };
    const timer = setInterval(() => void tick(), intervalMs);
    timer.unref();
    const stop = () => clearInterval(timer);
    this.stopRedrives.push(stop);
    return stop;
  }

  /** Stops every task this replica drives (shutdown), their OXP requests aborted, and its re-drives. */
  stopAll(): void {
    for (const stop of this.stopRedrives.splice(0)) stop();
    for (const running of this.running.values()) this.stop(running, 'shutdown');
  }

  private takeOver(record: TaskRecord, resume: (record: TaskRecord) => ((control: TaskControl) => Promise<TaskEnd>) | undefined): void {
    if (record.redrives > (this.options.maxRedrives ?? DEFAULT_MAX_REDRIVES)) {
      this.hooks.onGiveUp?.(record);
      void this.drive(record, new AbortController(), async () => givenUp(record.redrives));
      return;
    }
    this.hooks.onRedrive?.(record);
    const work = resume(record);
    void this.drive(record, new AbortController(), work ?? (async () => unresumable()));
  }

  private stop(running: Running, reason: TaskStopped['reason']): void {
    if (reason === 'taken_over' && !running.lost) {
      running.lost = true;
      this.hooks.onLeaseLost?.(running.record);
    }
    if (!running.abort.signal.aborted) running.abort.abort(new TaskStopped(reason));
  }

  private async settle(running: Running, end: TaskEnd | undefined): Promise<TaskRecord | undefined> {
    const { signal } = running.abort;
    const taskId = running.record.taskId;
    const reason = signal.aborted && signal.reason instanceof TaskStopped ? signal.reason.reason : undefined;
    if (reason === 'cancelled') this.hooks.onStatus?.('cancelled');
    // Taken over: the other replica writes the end. Expired: nothing to write to.
    if (reason === 'taken_over' || reason === 'expired') return undefined;
    if (reason === 'shutdown' && this.store.kind !== 'memory') return undefined;
    const final = reason ? stoppedEnd(reason) : end ? this.bounded(end) : abortedEnd();
    if (!final) return undefined;
    const written = await this.store.update(taskId, final, this.holder).catch(() => undefined);
    if (written?.ok) this.hooks.onStatus?.(written.record.status);
    // Taken over while the work ran here: the end found here is not written; the re-drive's will be.
    if (written && !written.ok && written.reason === 'lost') this.stop(running, 'taken_over');
    return written && 'record' in written ? written.record : undefined;
  }

  /** The end as kept: an outcome over maxResultBytes becomes a failure that says so. */
  private bounded(end: TaskEnd): TaskEnd {
    const bytes = Buffer.byteLength(JSON.stringify(end.outcome));
    if (bytes <= this.options.maxResultBytes) return end;
    const message = `The tool's result (${bytes} bytes) is larger than the ${this.options.maxResultBytes} bytes a task may keep (tasks.maxResultBytes).`;
    return { status: 'failed', statusMessage: message, outcome: internalError(message) };
  }

  private control(taskId: string, signal: AbortSignal): TaskControl {
    return {
      taskId,
      signal,
      askInput: (inputRequests, statusMessage) => this.askInput(taskId, signal, inputRequests, statusMessage),
      // A terminal task takes no change, nor one whose lease went elsewhere: nothing to report either way.
      setStatusMessage: async (statusMessage) => {
        await this.store.update(taskId, { status: 'working', statusMessage }, this.holder).catch(() => undefined);
      },
    };
  }

  private async askInput(taskId: string, signal: AbortSignal, inputRequests: JsonObject, statusMessage?: string): Promise<JsonObject> {
    const keys = Object.keys(inputRequests);
    const answered = (record: TaskRecord | undefined) =>
      record?.status === 'input_required' && keys.every((k) => record.inputResponses !== undefined && Object.hasOwn(record.inputResponses, k));
    const responses = await new Promise<JsonObject>((resolve, reject) => {
      let unwatch = () => {};
      const finish = (record: TaskRecord | undefined) => {
        if (!answered(record)) return;
        unwatch();
        signal.removeEventListener('abort', onAbort);
        resolve(record!.inputResponses!);
      };
      const onAbort = () => {
        unwatch();
        reject(signal.reason);
      };
      if (signal.aborted) return reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      unwatch = this.store.watch(taskId, finish);
      const change = { status: 'input_required' as const, inputRequests, ...(statusMessage !== undefined && { statusMessage }) };
      this.store.update(taskId, change, this.holder).then((outcome) => {
        if (outcome.ok) this.hooks.onStatus?.('input_required');
        finish(outcome.ok ? outcome.record : undefined);
      }, reject);
    });
    const resumed = await this.store.update(taskId, { status: 'working' }, this.holder);
    if (resumed.ok) this.hooks.onStatus?.('working');
    return responses;
  }
}

/** A task taken over more often than maxRedrives: each replica that ran it stopped (died) before it ended. */
function givenUp(times: number): TaskEnd {
  const message = `The task was given up after ${times} take-over${times === 1 ? '' : 's'} (more than tasks.maxRedrives): each replica that ran it stopped before it ended. Call the tool again.`;
  return { status: 'failed', statusMessage: message, outcome: internalError(message) };
}

/** A lapsed task whose record this replica cannot turn back into work (another direction's, or a newer format). */
function unresumable(): TaskEnd {
  const message = 'The task could not be resumed after the replica running it stopped; call the tool again.';
  return { status: 'failed', statusMessage: message, outcome: internalError(message) };
}

/** The work's own signal was aborted by its owner, not by the task being stopped. */
function abortedEnd(): TaskEnd {
  const message = 'The task was aborted before it ended.';
  return { status: 'failed', statusMessage: message, outcome: internalError(message) };
}

function internalError(message: string): TaskOutcome {
  return { kind: 'error', error: { code: JSONRPC_INTERNAL_ERROR, message } };
}

/** A task stopped by this process's shutdown (memory store: nobody else will finish it). */
function stoppedEnd(reason: TaskStopped['reason'] | undefined): TaskEnd | undefined {
  if (reason !== 'shutdown') return undefined;
  const message = 'The bridge shut down before the task ended; call the tool again.';
  return { status: 'failed', statusMessage: message, outcome: internalError(message) };
}

export { isTerminal };
