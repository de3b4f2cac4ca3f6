/**
 * The task methods as the MCP face answers them, for any transport (the SDK
 * adapter registers them, mcp-server-sdk.ts): which methods a revision has, who may
 * use them, and each answer in the revision's shape (task-wire.ts). The
 * decisions are the bridge's (bridge/task-calls.ts).
 *
 * - 2025-11-25: tasks/get, tasks/result, tasks/list, tasks/cancel.
 * - 2026-07-28: tasks/get, tasks/update, tasks/cancel, and only for requests
 *   whose client capabilities declare the extension (else -32021).
 * - any other revision, or tasks off: -32601, as for any unknown method.
 *
 * A task of another owner answers exactly as an unknown id (-32602).
 */
import type { Bridge } from '../bridge/bridge.js';
import { isTerminal, missingTasksExtension, type TaskRecord, type TaskStore } from '../bridge/task-calls.js';
import { profileFor, revisionsOfEra, type McpEra } from '../../core/mcp-versions.js';
import { JSONRPC_METHOD_NOT_FOUND, type McpErrorReply, TASKS_EXTENSION } from '../../core/mcp-wire.js';
import type { InboundRequest } from './inbound.js';
import { coreTask, coreTaskPayload, detailedTask, RELATED_TASK_META_KEY } from './task-wire.js';
import type { TaskQueries } from '../bridge/task-queries.js';

export const TASK_METHODS = ['tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel', 'tasks/update'] as const;
export type TaskMethod = (typeof TASK_METHODS)[number];

const CORE_METHODS: ReadonlySet<TaskMethod> = new Set(['tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel']);
const EXTENSION_METHODS: ReadonlySet<TaskMethod> = new Set(['tasks/get', 'tasks/update', 'tasks/cancel']);

type Answer = { result: Record<string, unknown> } | { error: McpErrorReply };
type Notify = (notification: { method: string; params: Record<string, unknown> }) => Promise<void>;
/** Sends one elicitation request to this request's client and resolves with its answer (stdio, 2025-11-25). */
export type Elicit = (params: Record<string, unknown>) => Promise<unknown>;

/**
 * The server capabilities tasks add to a server of `era`, for the tasks flavours its revisions have: core tasks'
 * `tasks` (2025-11-25; the SDK drops it from modern answers, the bridge from `initialize` answers of a revision
 * without core tasks) and the extension's (2026-07-28).
 */
export function taskCapabilities(era: McpEra): Record<string, unknown> {
  const flavours = new Set(revisionsOfEra(era).map((v) => profileFor(v).tasks));
  return {
    ...(flavours.has('core') ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } : {}),
    ...(flavours.has('extension') ? { extensions: { [TASKS_EXTENSION]: {} } } : {}),
  };
}

export async function taskMethod(
  bridge: Bridge,
  method: TaskMethod,
  params: Record<string, unknown>,
  inbound: InboundRequest,
  signal: AbortSignal,
  notify: Notify,
  elicit?: Elicit,
): Promise<Answer> {
  const tasks = bridge.tasks;
  const flavour = profileFor(inbound.revision).tasks;
  const known = flavour === 'core' ? CORE_METHODS : flavour === 'extension' ? EXTENSION_METHODS : undefined;
  if (!tasks?.enabled || !known?.has(method)) return { error: { code: JSONRPC_METHOD_NOT_FOUND, message: 'Method not found' } };
  if (flavour === 'extension' && !inbound.tasksExtension)
    return {
      error: missingTasksExtension(
        `Missing required client capability: ${method} needs the ${TASKS_EXTENSION} extension declared in the request's client capabilities.`,
      ),
    };
  const owner = tasks.ownerOf(inbound.principal, inbound.sessionId);
  switch (method) {
    case 'tasks/get': {
      const found = await tasks.queries.find(params.taskId, owner);
      return 'error' in found ? found : { result: flavour === 'core' ? coreTask(found.result) : detailedTask(found.result) };
    }
    case 'tasks/result': {
      // What the task asks of the client goes out on this request (the spec's input_required flow), where it can.
      const ask = elicit ? inputDelivery(tasks.queries, owner, elicit) : undefined;
      const first = await tasks.queries.find(params.taskId, owner);
      if ('result' in first) ask?.(first.result);
      // Status changes while it waits go to the client on this request's stream (HTTP: SSE; stdio: the connection).
      const ended = await tasks.queries.awaitEnd(params.taskId, owner, signal, (record) => {
        void notify(statusNotification(record)).catch(() => undefined);
        ask?.(record);
      });
      return 'error' in ended ? ended : coreTaskPayload(ended.result);
    }
    case 'tasks/list': {
      const page = await tasks.queries.list(owner, params.cursor);
      if ('error' in page) return page;
      return { result: { tasks: page.result.tasks.map(coreTask), ...(page.result.nextCursor !== undefined && { nextCursor: page.result.nextCursor }) } };
    }
    case 'tasks/cancel': {
      const cancelled = await tasks.queries.cancel(params.taskId, owner, flavour);
      if ('error' in cancelled) return cancelled;
      return { result: flavour === 'core' && cancelled.result ? coreTask(cancelled.result) : {} };
    }
    case 'tasks/update': {
      const updated = await tasks.queries.update(params.taskId, owner, params.inputResponses);
      return 'error' in updated ? updated : { result: {} };
    }
  }
}

/**
 * 2025-11-25, an input_required task: each input request it has not had an answer for is sent to the client as an
 * elicitation request naming the task (related-task), once per tasks/result, and the client's answer is kept on the
 * task (as 2026-07-28's tasks/update keeps it), which resumes the work wherever it runs.
 */
function inputDelivery(queries: TaskQueries, owner: string, elicit: Elicit): (record: TaskRecord) => void {
  const asked = new Set<string>();
  return (record) => {
    if (record.status !== 'input_required') return;
    for (const [key, request] of Object.entries(record.inputRequests ?? {})) {
      if (asked.has(key) || (record.inputResponses && Object.hasOwn(record.inputResponses, key))) continue;
      asked.add(key);
      const params = { ...((request as { params?: Record<string, unknown> }).params ?? {}), _meta: { [RELATED_TASK_META_KEY]: { taskId: record.taskId } } };
      elicit(params).then(
        (answer) => void queries.update(record.taskId, owner, { [key]: answer as Record<string, unknown> }),
        () => void queries.update(record.taskId, owner, { [key]: { action: 'cancel' } }),
      );
    }
  };
}

function statusNotification(record: TaskRecord): { method: string; params: Record<string, unknown> } {
  return { method: 'notifications/tasks/status', params: coreTask(record) };
}

/**
 * Sends 2025-11-25 `notifications/tasks/status` params for each change of a task's status (or message) until it ends
 * or expires; returns the function that stops it. `done` is called once it stopped by itself.
 */
export function watchTaskStatus(store: TaskStore, created: TaskRecord, send: (params: Record<string, unknown>) => void, done: () => void): () => void {
  let last = { status: created.status, message: created.statusMessage };
  const unwatch = store.watch(created.taskId, (record) => {
    if (!record) return stop();
    if (record.status === last.status && record.statusMessage === last.message) return;
    last = { status: record.status, message: record.statusMessage };
    send(coreTask(record));
    if (isTerminal(record.status)) stop();
  });
  function stop() {
    unwatch();
    done();
  }
  return unwatch;
}
