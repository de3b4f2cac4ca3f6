/**
 * Task status notifications over stdio (task-notifications.ts says what they are): the SDK's stdio listen router
 * serves `subscriptions/listen` and knows nothing of tasks, so its transport is wrapped here, as stdio-end.ts wraps
 * it: a 2026-07-28 listen naming `notifications.taskIds` without the extension declared is answered -32021 and never
 * reaches the SDK; with it, the SDK's acknowledgement goes out with the agreed ids, then each agreed task's
 * notifications, and the listen's response (the subscription's end) waits until every followed task has ended.
 * Following stops when the client cancels the listen or the connection closes.
 */
import type { TaskCalls, TaskRecord } from '../bridge/task-calls.js';
import { messageKey } from './inbound.js';
import { ACKNOWLEDGED, agreeTasks, requestedTaskIds, SUBSCRIPTION_ID_META_KEY, taskStatusNotification, withAgreedTaskIds } from './task-notifications.js';

/** The part of an MCP transport this needs: messages in, messages out, its close. */
interface MessageTransport {
  onmessage?: ((message: never, extra?: never) => void) | undefined;
  onclose?: (() => void) | undefined;
  send(message: never, options?: never): Promise<void>;
}

type Message = { jsonrpc?: string; id?: string | number; method?: string; params?: Record<string, unknown> };

/** What a request's `_meta` envelope says (the SDK adapter reads it with the SDK's keys): a 2026-07-28 request, declaring the tasks extension. */
export type EnvelopeFacts = (meta: Record<string, unknown> | undefined) => { modern: boolean; tasksExtension: boolean };

/** One listen naming task ids, from its request to its response. */
interface Listening {
  agreement: Exclude<Awaited<ReturnType<typeof agreeTasks>>, { error: unknown }>;
  following: AbortController;
  followed?: Promise<unknown>;
}

/** A 2026-07-28 listen request's task ids and whether its client capabilities declare the extension. */
function listenRequest(message: Message, envelope: EnvelopeFacts): { ids: readonly string[]; extension: boolean } | undefined {
  if (message.id === undefined) return undefined;
  const ids = requestedTaskIds(message);
  if (!ids) return undefined;
  const facts = envelope(message.params?._meta as Record<string, unknown> | undefined);
  return facts.modern ? { ids, extension: facts.tasksExtension } : undefined;
}

/** Wraps `transport` (after the SDK's handlers are installed) so that its listens carry task notifications. */
export function followTasksOverStdio(transport: MessageTransport, tasks: () => TaskCalls | undefined, envelope: EnvelopeFacts): void {
  new StdioTaskListens(transport, tasks, envelope).install();
}

class StdioTaskListens {
  private readonly listening = new Map<string, Listening>();
  /** Listens whose ids are being agreed (before the SDK sees them): true once the client cancelled one. */
  private readonly agreeing = new Map<string, boolean>();
  private readonly received: ((message: Message, extra?: unknown) => void) | undefined;
  private readonly send: (message: Message, options?: unknown) => Promise<void>;

  constructor(
    private readonly transport: MessageTransport,
    private readonly tasks: () => TaskCalls | undefined,
    private readonly envelope: EnvelopeFacts,
  ) {
    this.received = transport.onmessage as ((message: Message, extra?: unknown) => void) | undefined;
    this.send = transport.send.bind(transport) as (message: Message, options?: unknown) => Promise<void>;
  }

  install(): void {
    const closed = this.transport.onclose;
    this.transport.onmessage = (message: Message, extra?: unknown) => this.onMessage(message, extra);
    this.transport.send = (message: Message, options?: unknown) => this.onSend(message, options);
    this.transport.onclose = () => {
      for (const entry of this.listening.values()) entry.following.abort();
      this.listening.clear();
      closed?.();
    };
  }

  private onMessage(message: Message, extra: unknown): void {
    const tasks = this.tasks();
    const request = tasks?.enabled && message.method === 'subscriptions/listen' ? listenRequest(message, this.envelope) : undefined;
    if (request && tasks) return this.agree(tasks, request, message, extra);
    if (message.method === 'notifications/cancelled') {
      const key = messageKey(message.params?.requestId);
      if (this.agreeing.has(key)) this.agreeing.set(key, true);
      this.listening.get(key)?.following.abort();
    }
    this.received?.(message, extra);
  }

  /**
   * The ids are agreed before the SDK sees the listen: a refusal (no extension, the task store not answering) is its
   * answer instead, as over HTTP; a listen cancelled meanwhile never reaches the SDK (it would hold it open for nobody).
   */
  private agree(tasks: TaskCalls, request: { ids: readonly string[]; extension: boolean }, message: Message, extra: unknown): void {
    const key = messageKey(message.id);
    this.agreeing.set(key, false);
    void agreeTasks(tasks, request.extension ? { tasksExtension: true } : {}, request.ids)
      .then((agreement) => {
        const cancelled = this.agreeing.get(key);
        this.agreeing.delete(key);
        if (cancelled) return;
        if ('error' in agreement) return this.send({ jsonrpc: '2.0', id: message.id!, error: agreement.error } as Message);
        this.listening.set(key, { agreement, following: new AbortController() });
        this.received?.(message, extra);
      })
      .catch(() => undefined); // the refusal's send failing means stdout is gone: nothing to answer on
  }

  private async onSend(message: Message, options?: unknown): Promise<void> {
    if (message.method === ACKNOWLEDGED) {
      const meta = message.params?._meta as Record<string, unknown> | undefined;
      const entry = this.listening.get(messageKey(meta?.[SUBSCRIPTION_ID_META_KEY]));
      if (entry) return this.acknowledge(entry, message, meta![SUBSCRIPTION_ID_META_KEY] as string | number, options);
    } else if (message.method === undefined && message.id !== undefined) {
      const entry = this.listening.get(messageKey(message.id));
      if (entry) {
        // The subscription's end waits for the ends of the tasks it follows.
        await entry.followed;
        this.listening.delete(messageKey(message.id));
      }
    }
    return this.send(message, options);
  }

  /** The SDK's acknowledgement with the agreed ids, then each agreed task followed on the subscription. */
  private async acknowledge(entry: Listening, ack: Message, subscriptionId: string | number, options: unknown): Promise<void> {
    const { agreed, follow } = entry.agreement;
    const taskIds = agreed.map((r) => r.taskId);
    await this.send(withAgreedTaskIds(ack, taskIds), options);
    const notify = (record: TaskRecord) => {
      if (!entry.following.signal.aborted) void this.send(taskStatusNotification(record, subscriptionId) as Message).catch(() => undefined);
    };
    entry.followed = Promise.all(agreed.map((record) => follow(record, entry.following.signal, notify)));
  }
}
