/**
 * 2026-07-28 task status notifications (the tasks extension, "Task Status Notifications"): a `subscriptions/listen`
 * request naming `notifications.taskIds` gets, on its stream, `notifications/tasks` carrying each named task's full
 * DetailedTask (what `tasks/get` would answer at that moment): at once, then at every change until the task ends,
 * wherever it runs (the task store's watch reaches every replica).
 *
 * The SDK serves the stream (its acknowledgement, the list-change events, the keep-alive) and knows nothing of
 * tasks; this adds the ids agreed to its acknowledgement and writes the task notifications after it, in the SDK's
 * own SSE framing. Only the caller's own tasks are agreed: an id of nobody's task and one of someone else's are left
 * out alike. A client that asks without declaring the extension gets -32021, as the extension requires.
 */
import { missingTasksExtension, taskStoreUnavailable, type TaskCalls, type TaskRecord } from '../bridge/task-calls.js';
import { TASKS_EXTENSION, type McpErrorReply } from '../../core/mcp-wire.js';
import type { InboundRequest } from './inbound.js';
import { detailedTask } from './task-wire.js';

/** Task ids one `subscriptions/listen` may follow: the first ones named are agreed, the acknowledgement says which. */
export const MAX_FOLLOWED_TASKS = 64;

/** The `_meta` key naming the subscription a notification was delivered on (its listen request's id). */
export const SUBSCRIPTION_ID_META_KEY = 'io.modelcontextprotocol/subscriptionId';
export const ACKNOWLEDGED = 'notifications/subscriptions/acknowledged';

/**
 * The task ids a `subscriptions/listen` request asks status notifications for, the first MAX_FOLLOWED_TASKS distinct
 * ones only (none: undefined). The rest of a long list is never looked at.
 */
export function requestedTaskIds(message: unknown): readonly string[] | undefined {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return undefined;
  const m = message as { method?: unknown; params?: { notifications?: { taskIds?: unknown } } };
  if (m.method !== 'subscriptions/listen') return undefined;
  const ids = m.params?.notifications?.taskIds;
  if (!Array.isArray(ids)) return undefined;
  const first = new Set<string>();
  for (const id of ids) {
    if (first.size === MAX_FOLLOWED_TASKS) break;
    if (typeof id === 'string') first.add(id);
  }
  return first.size ? [...first] : undefined;
}

/**
 * What a `subscriptions/listen` naming `taskIds` (requestedTaskIds: at most MAX_FOLLOWED_TASKS) is agreed: the
 * caller's own tasks among them, each as it is now, and how to follow one; or the error it is answered (no extension
 * declared; the task store not answering).
 */
export async function agreeTasks(
  tasks: TaskCalls,
  inbound: Pick<InboundRequest, 'tasksExtension' | 'principal' | 'sessionId'>,
  taskIds: readonly string[],
): Promise<{ agreed: TaskRecord[]; follow: FollowTask } | { error: McpErrorReply }> {
  if (!inbound.tasksExtension)
    return {
      error: missingTasksExtension(
        `Missing required client capability: task status notifications need the ${TASKS_EXTENSION} extension declared in the request's client capabilities.`,
      ),
    };
  const owner = tasks.ownerOf(inbound.principal, inbound.sessionId);
  try {
    const found = await Promise.all(taskIds.map((taskId) => tasks.queries.find(taskId, owner)));
    const agreed = found.flatMap((f) => ('result' in f ? [f.result] : []));
    return { agreed, follow: (record, signal, onRecord) => tasks.queries.follow(record, owner, signal, onRecord) };
  } catch {
    return { error: taskStoreUnavailable('Task status notifications cannot be set up right now: the task store does not answer. Try again shortly.') };
  }
}

/** One SSE event as the SDK frames its own. */
export function sseEvent(message: unknown): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

/** The status notification of one task on the subscription `subscriptionId`. */
export function taskStatusNotification(record: TaskRecord, subscriptionId: string | number): Record<string, unknown> {
  return { jsonrpc: '2.0', method: 'notifications/tasks', params: { ...detailedTask(record), _meta: { [SUBSCRIPTION_ID_META_KEY]: subscriptionId } } };
}

/** The JSON-RPC message an SSE event carries (its `data` line), if any. */
function messageOf(event: string): Record<string, unknown> | undefined {
  const data = event.split('\n').find((line) => line.startsWith('data:'));
  if (data === undefined) return undefined;
  try {
    const message: unknown = JSON.parse(data.slice('data:'.length));
    return message !== null && typeof message === 'object' && !Array.isArray(message) ? (message as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The SDK's acknowledgement of a listen with the task ids agreed added to its `notifications` (HTTP and stdio). */
export function withAgreedTaskIds<T extends { params?: Record<string, unknown> }>(ack: T, taskIds: readonly string[]): T {
  const notifications = { ...(ack.params?.notifications as Record<string, unknown> | undefined), taskIds: [...taskIds] };
  return { ...ack, params: { ...ack.params, notifications } };
}

/** An SSE event of the SDK's stream with `taskIds` added when it is the acknowledgement; undefined when it is not. */
export function acknowledgedWith(event: string, taskIds: readonly string[]): string | undefined {
  if (!event.includes(ACKNOWLEDGED)) return undefined;
  const message = messageOf(event) as { method?: unknown; params?: Record<string, unknown> } | undefined;
  if (message?.method !== ACKNOWLEDGED || !message.params) return undefined;
  return sseEvent(withAgreedTaskIds(message, taskIds));
}

/** Starts following one agreed task: `onRecord` now and at each change; resolves once it ended, expired or `signal` aborted. */
export type FollowTask = (record: TaskRecord, signal: AbortSignal, onRecord: (record: TaskRecord) => void) => Promise<void>;

/** Whether an SSE event of the listen stream is its JSON-RPC response (the subscription's end). */
function isResponse(event: string): boolean {
  const message = messageOf(event);
  return message !== undefined && 'id' in message && !('method' in message);
}

/** A byte stream of SSE events read as whole events: each read resolves with the next ones (at least one), or `undefined` at its end (a partial event left over comes last). */
function sseEventReader(body: ReadableStream<Uint8Array>): { read(): Promise<string[] | undefined>; cancel(reason: unknown): Promise<void> } {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let pending = '';
  return {
    async read() {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          const rest = pending;
          pending = '';
          return rest ? [rest] : undefined;
        }
        pending += decoder.decode(value, { stream: true });
        const events: string[] = [];
        for (let cut = pending.indexOf('\n\n'); cut !== -1; cut = pending.indexOf('\n\n')) {
          events.push(pending.slice(0, cut + 2));
          pending = pending.slice(cut + 2);
        }
        if (events.length) return events;
      }
    },
    cancel: (reason) => reader.cancel(reason),
  };
}

/**
 * The SDK's `subscriptions/listen` stream with the task notifications woven in: its events pass as they are, the
 * acknowledgement with the agreed ids, then each agreed task's notifications. The listen's response, which ends
 * the subscription, waits until every followed task has ended (the SDK answers at once a listen with nothing else
 * to follow). Following stops when the stream ends or its reader cancels it (the client went away).
 */
export function withTaskNotifications(
  body: ReadableStream<Uint8Array>,
  subscriptionId: string | number,
  agreed: readonly TaskRecord[],
  follow: FollowTask,
): ReadableStream<Uint8Array> {
  const events = sseEventReader(body);
  const encoder = new TextEncoder();
  const following = new AbortController();
  const ids = agreed.map((r) => r.taskId);
  let followed: Promise<unknown> | undefined;
  let closed = false;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const enqueue = (text: string) => {
    if (!closed) controller.enqueue(encoder.encode(text));
  };
  const send = (record: TaskRecord) => enqueue(sseEvent(taskStatusNotification(record, subscriptionId)));
  const end = () => {
    closed = true;
    following.abort();
  };
  /** One whole event of the SDK's stream, passed on (the acknowledgement rewritten, the response held back). */
  const pass = async (event: string) => {
    const ack = followed === undefined ? acknowledgedWith(event, ids) : undefined;
    if (ack !== undefined) {
      enqueue(ack);
      followed = Promise.all(agreed.map((record) => follow(record, following.signal, send)));
      return;
    }
    if (followed !== undefined && isResponse(event)) await followed;
    enqueue(event);
  };
  return new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    // A pull must queue something or end: the stream asks again only then (sseEventReader reads until it has one).
    async pull() {
      const next = await events.read();
      if (next === undefined) {
        end();
        return controller.close();
      }
      for (const event of next) await pass(event);
    },
    cancel(reason) {
      end();
      return events.cancel(reason);
    },
  });
}
