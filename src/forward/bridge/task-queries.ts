/**
 * The task methods' side of forward tasks (task-calls.ts runs them): finding the caller's task, waiting for its end
 * (2025-11-25 tasks/result), listing, cancelling and answering its input requests. A task of another owner is an
 * unknown id: every method answers it exactly so.
 */
import { isTaskIdShape } from '../../calls/tasks/ids.js';
import { isTerminal, type JsonObject, type TaskRecord, type TaskStore } from '../../calls/tasks/store.js';
import type { TaskFlavour } from '../../core/mcp-versions.js';
import { JSONRPC_INVALID_PARAMS, type McpErrorReply } from '../../core/mcp-wire.js';
import { taskStoreUnavailable } from './task-errors.js';

const storeUnavailable = (error: unknown): boolean =>
  error instanceof Error && error.name === 'TaskStoreError' && (error as { code?: unknown }).code === 'unavailable';

/** Tasks per tasks/list page. */
const LIST_PAGE = 100;

export type TaskReply<T> = { result: T } | { error: McpErrorReply };

export class TaskQueries {
  constructor(private readonly store: TaskStore) {}

  /** The caller's task, or the error an unknown id gets (the same for a task of someone else). */
  async find(taskId: unknown, owner: string): Promise<TaskReply<TaskRecord>> {
    const record = isTaskIdShape(taskId) ? await this.store.get(taskId, owner) : undefined;
    return record ? { result: record } : notFound();
  }

  /** 2025-11-25 tasks/result: waits for the end (or the client going away), then the record. */
  async awaitEnd(taskId: unknown, owner: string, signal: AbortSignal, onChange?: (record: TaskRecord) => void): Promise<TaskReply<TaskRecord>> {
    const found = await this.find(taskId, owner);
    if ('error' in found || isTerminal(found.result.status)) return found;
    let latest = found.result;
    await this.changesAfter(found.result, owner, signal, (record) => {
      latest = record;
      if (!isTerminal(record.status)) onChange?.(record);
    });
    if (isTerminal(latest.status)) return { result: latest };
    if (signal.aborted) throw signal.reason;
    return notFound('Task has expired');
  }

  /**
   * 2026-07-28 subscriptions/listen: `onRecord` with the caller's task as found (`first`, from `find`), then with
   * every change, wherever it runs, until its end, its expiry or `signal`; resolves then.
   */
  follow(first: TaskRecord, owner: string, signal: AbortSignal, onRecord: (record: TaskRecord) => void): Promise<void> {
    onRecord(first);
    return this.changesAfter(first, owner, signal, onRecord);
  }

  /** `onChange` with every change of the task after `first` (each revision once), until its end, its expiry or `signal`; resolves then. */
  private changesAfter(first: TaskRecord, owner: string, signal: AbortSignal, onChange: (record: TaskRecord) => void): Promise<void> {
    if (isTerminal(first.status) || signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      let last = first.revision;
      let unwatch = (): void => undefined;
      const stop = () => {
        unwatch();
        signal.removeEventListener('abort', stop);
        resolve();
      };
      const seen = (record: TaskRecord | undefined) => {
        if (!record) return stop();
        if (record.revision <= last) return;
        last = record.revision;
        onChange(record);
        if (isTerminal(record.status)) stop();
      };
      unwatch = this.store.watch(first.taskId, seen);
      signal.addEventListener('abort', stop, { once: true });
      // A change between the read of `first` and the watch: read once more. A failed read leaves it to the watch (and
      // is not left unhandled, which would end the process).
      void this.store.get(first.taskId, owner).then(
        (record) => record && seen(record),
        () => undefined,
      );
    });
  }

  /** 2025-11-25 tasks/list: the caller's own tasks, newest first. */
  async list(owner: string, cursor: unknown): Promise<TaskReply<{ tasks: readonly TaskRecord[]; nextCursor?: string }>> {
    if (cursor !== undefined && typeof cursor !== 'string') return { error: { code: JSONRPC_INVALID_PARAMS, message: 'Invalid cursor' } };
    const page = await this.store.list(owner, cursor, LIST_PAGE);
    return page === 'bad_cursor' ? { error: { code: JSONRPC_INVALID_PARAMS, message: 'Invalid cursor' } } : { result: page };
  }

  /**
   * tasks/cancel. 2025-11-25: the cancelled task, or -32602 for a task already ended. 2026-07-28: an
   * acknowledgement either way (`record` undefined for an ended task). Unknown ids: -32602.
   */
  async cancel(taskId: unknown, owner: string, flavour: TaskFlavour): Promise<TaskReply<TaskRecord | undefined>> {
    if (!isTaskIdShape(taskId)) return notFound();
    let outcome;
    try {
      outcome = await this.store.cancel(taskId, owner, 'The task was cancelled by request.');
    } catch (error) {
      // Redis does not answer and another replica runs the task: a cancel answered now could lose to its end.
      if (storeUnavailable(error))
        return { error: taskStoreUnavailable('The task cannot be cancelled right now: the task store does not answer. Try again shortly.') };
      throw error;
    }
    if (outcome.ok) return { result: outcome.record };
    if (outcome.reason === 'unknown') return notFound();
    if (flavour === 'extension') return { result: undefined };
    return { error: { code: JSONRPC_INVALID_PARAMS, message: `Cannot cancel task: already in terminal status '${outcome.record.status}'` } };
  }

  /** 2026-07-28 tasks/update: the answers are kept (keys not asked for are ignored); an acknowledgement. */
  async update(taskId: unknown, owner: string, inputResponses: unknown): Promise<TaskReply<undefined>> {
    if (!isTaskIdShape(taskId)) return notFound();
    if (!isResponses(inputResponses))
      return { error: { code: JSONRPC_INVALID_PARAMS, message: 'inputResponses must be an object of responses, one per request key' } };
    const outcome = await this.store.respond(taskId, owner, inputResponses);
    return !outcome.ok && outcome.reason === 'unknown' ? notFound() : { result: undefined };
  }
}

function isResponses(value: unknown): value is JsonObject {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  return Object.values(value).every((v) => v !== null && typeof v === 'object' && !Array.isArray(v));
}

export function notFound(why = 'Task not found'): { error: McpErrorReply } {
  return { error: { code: JSONRPC_INVALID_PARAMS, message: `Failed to retrieve task: ${why}` } };
}
