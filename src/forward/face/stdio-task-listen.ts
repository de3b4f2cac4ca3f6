/**
 * Task status notifications over stdio (task-notifications.ts says what they are): the SDK's stdio listen router
 * serves `subscriptions/listen` and knows nothing of tasks, so its transport is wrapped here, as stdio-end.ts wraps
 * it: a 2026-07-28 listen naming `notifications.taskIds` without the extension declared is answered -32021 and never
 * reaches the SDK; with it, the SDK's acknowledgement goes out with the agreed ids, then each agreed task's
 * notifications, and the listen's response (the subscription's end) waits until every followed task has ended.
 * Following stops when the client cancels the listen or the connection closes.
 */
import type { TaskCalls, TaskRecord } from '../bridge/task-calls.js';
import { MODERN_VERSION } from '../../core/mcp-versions.js';
import { agreeTasks, requestedTaskIds, taskStatusNotification } from './task-notifications.js';

/** The part of an MCP transport this needs: messages in, messages out, its close. */
interface MessageTransport {
  onmessage?: ((message: never, extra?: never) => void) | undefined;
  onclose?: (() => void) | undefined;
  send(message: never, options?: never): Promise<void>;
}

type Message = { jsonrpc?: string; id?: string | number; method?: string; params?: Record<string, unknown> };

const ACKNOWLEDGED = 'notifications/subscriptions/acknowledged';
const SUBSCRIPTION_ID_META_KEY = 'io.modelcontextprotocol/subscriptionId';

/** One listen naming task ids, from its request to its response. */
interface Listening {
  agreement: ReturnType<typeof agreeTasks>;
  following: AbortController;
  followed?: Promise<unknown>;
}

const keyOf = (id: unknown): string => `${typeof id}:${String(id)}`;

/** A 2026-07-28 listen request's task ids and whether its client capabilities declare the extension. */
function listenRequest(message: Message, declares: (capabilities: unknown) => boolean): { ids: readonly string[]; extension: boolean } | undefined {
  if (message.id === undefined) return undefined;
  const ids = requestedTaskIds(message);
  const meta = message.params?._meta as Record<string, unknown> | undefined;
  if (!ids || meta?.['io.modelcontextprotocol/protocolVersion'] !== MODERN_VERSION) return undefined;
  return { ids, extension: declares(meta['io.modelcontextprotocol/clientCapabilities']) };
}

export function followTasksOverStdio(transport: MessageTransport, tasks: () => TaskCalls | undefined, declares: (capabilities: unknown) => boolean): void {
  const listening = new Map<string, Listening>();
  const received = transport.onmessage as ((message: Message, extra?: unknown) => void) | undefined;
  const send = transport.send.bind(transport) as (message: Message, options?: unknown) => Promise<void>;
  const closed = transport.onclose;

  transport.onmessage = (message: Message, extra?: unknown) => {
    const current = tasks();
    const request = current?.enabled && message.method === 'subscriptions/listen' ? listenRequest(message, declares) : undefined;
    if (request && current) {
      const agreement = agreeTasks(current, request.extension ? { tasksExtension: true } : {}, request.ids);
      if (!request.extension)
        return void agreement.then((answer) => ('error' in answer ? send({ jsonrpc: '2.0', id: message.id!, error: answer.error } as Message) : undefined));
      listening.set(keyOf(message.id), { agreement, following: new AbortController() });
    } else if (message.method === 'notifications/cancelled') listening.get(keyOf(message.params?.requestId))?.following.abort();
    received?.(message, extra);
  };

  transport.send = async (message: Message, options?: unknown) => {
    if (message.method === ACKNOWLEDGED) {
      const meta = message.params?._meta as Record<string, unknown> | undefined;
      const entry = listening.get(keyOf(meta?.[SUBSCRIPTION_ID_META_KEY]));
      if (entry) return acknowledge(entry, message, meta![SUBSCRIPTION_ID_META_KEY] as string | number, options);
    } else if (message.method === undefined && message.id !== undefined) {
      const entry = listening.get(keyOf(message.id));
      if (entry) {
        // The subscription's end waits for the ends of the tasks it follows.
        await entry.followed;
        listening.delete(keyOf(message.id));
      }
    }
    return send(message, options);
  };

  transport.onclose = () => {
    for (const entry of listening.values()) entry.following.abort();
    listening.clear();
    closed?.();
  };

  async function acknowledge(entry: Listening, ack: Message, subscriptionId: string | number, options: unknown): Promise<void> {
    const answer = await entry.agreement;
    const agreed = 'error' in answer ? [] : answer.agreed;
    const notifications = { ...(ack.params?.notifications as Record<string, unknown> | undefined), taskIds: agreed.map((r) => r.taskId) };
    await send({ ...ack, params: { ...ack.params, notifications } }, options);
    if ('error' in answer) return;
    const notify = (record: TaskRecord) => {
      if (!entry.following.signal.aborted) void send(taskStatusNotification(record, subscriptionId) as Message).catch(() => undefined);
    };
    entry.followed = Promise.all(agreed.map((record) => answer.follow(record, entry.following.signal, notify)));
  }
}
