/**
 * One MCP tool call run as a 2025-11-25 task, as the oxp-server makes it for
 * a tool whose `execution.taskSupport` is `"required"`: a task-augmented
 * `tools/call`, then `tasks/get` at the server's `pollInterval` (or sooner,
 * when a `notifications/tasks/status` says the task ended) until the task
 * ends or needs input, then `tasks/result`.
 *
 * - `input_required`: `tasks/result` at once, as the spec asks. It carries
 *   the server's requests for input to the client's handlers (mcp-client-sdk.ts
 *   declines them, keeping URL-mode ones as the call's authorization
 *   challenge, exactly as during a plain call) and answers when the task
 *   ends.
 * - The OXP client went away, or the call's deadline passed: `tasks/cancel`
 *   (sent without waiting, so the answer or the clean-up is not held up).
 *
 * No SDK here: the adapter (mcp-client-sdk.ts) hands over a TaskWire and turns SDK
 * errors, which this lets through, into outcomes.
 */
import type { JsonObject } from '../../core/json.js';
import { isTerminal, pollDelayMs, readCreateTaskResult, readTask, type McpTask } from '../../core/mcp-task-polling.js';

export type TaskMethod = 'tools/call' | 'tasks/get' | 'tasks/result' | 'tasks/cancel';

/** What the SDK adapter gives the driver. */
export interface TaskWire {
  /** One request, its result read with a permissive schema (the driver checks it); rejects as the SDK does. */
  request(method: TaskMethod, params: JsonObject, options: { signal?: AbortSignal; timeoutMs: number }): Promise<Record<string, unknown>>;
  /** Calls `onTask` with each status notification of `taskId` until the returned function is called. */
  watch(taskId: string, onTask: (task: McpTask) => void): () => void;
}

export interface TaskCallOptions {
  /** Aborted when the OXP client goes away. */
  signal: AbortSignal;
  /** The whole call's deadline, creation to result. */
  timeoutMs: number;
  meta?: JsonObject;
  /** Told the task id as soon as the server created the task. */
  onTask?: (taskId: string) => void;
}

export type TaskCallEnd =
  /** What `tasks/result` answered (or the plain result of a server that ran the call at once): unchecked. */
  | { kind: 'result'; raw: Record<string, unknown> }
  | { kind: 'deadline' }
  | { kind: 'abandoned' }
  /** The task ended without a result the OXP client can use (cancelled by the server, malformed task). */
  | { kind: 'no_result'; message: string; detail: string; canRetry?: boolean };

/** How long the server is asked to keep a task beyond the call's deadline: time to read its result. */
const TTL_MARGIN_MS = 60_000;
/** A `tasks/cancel` sent when the call is given up waits this long for its answer (which nobody reads). */
const CANCEL_TIMEOUT_MS = 10_000;

class MalformedTask extends Error {}

export async function callToolAsTask(wire: TaskWire, name: string, args: JsonObject, options: TaskCallOptions): Promise<TaskCallEnd> {
  // A timer of its own rather than AbortSignal.timeout, whose timer lives on (up to the whole deadline) after the call.
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error('the task call deadline passed')), options.timeoutMs);
  const signal = AbortSignal.any([options.signal, deadline.signal]);
  const started = Date.now();
  const send = (method: TaskMethod, params: JsonObject) =>
    wire.request(method, params, { signal, timeoutMs: Math.max(1, options.timeoutMs - (Date.now() - started)) });
  let taskId: string | undefined;
  let ended = false;
  try {
    const params: JsonObject = { name, arguments: args, task: { ttl: options.timeoutMs + TTL_MARGIN_MS } };
    if (options.meta) params._meta = options.meta;
    const created = readCreateTaskResult(await send('tools/call', params));
    if ('problem' in created) return { kind: 'no_result', message: MALFORMED, detail: created.problem };
    if ('result' in created) return { kind: 'result', raw: created.result };
    taskId = created.task.taskId;
    options.onTask?.(taskId);
    const last = await untilSettled(wire, created.task, signal, send);
    if (last.status === 'cancelled') {
      ended = true;
      return {
        kind: 'no_result',
        message: CANCELLED,
        detail: `MCP task ${taskId} was cancelled by the server: ${last.statusMessage ?? 'no reason given'}`,
        canRetry: true,
      };
    }
    // completed or failed: the result as the call would have answered it; input_required: the input requests, then the result.
    const raw = await send('tasks/result', { taskId });
    ended = true;
    return { kind: 'result', raw };
  } catch (error) {
    if (error instanceof MalformedTask) return { kind: 'no_result', message: MALFORMED, detail: `MCP task ${taskId}: ${error.message}` };
    if (deadline.signal.aborted) return { kind: 'deadline' };
    if (options.signal.aborted) return { kind: 'abandoned' };
    throw error;
  } finally {
    clearTimeout(timer);
    // Given up (client gone, deadline, a malformed or lost answer): the server is told to stop.
    if (taskId !== undefined && !ended) void wire.request('tasks/cancel', { taskId }, { timeoutMs: CANCEL_TIMEOUT_MS }).catch(() => undefined);
  }
}

const MALFORMED = 'The tool server answered the call in a way the bridge could not understand.';
const CANCELLED = 'The tool server cancelled the call before it finished.';

/** `tasks/get` at the task's poll interval until it ends or needs input; a status notification of either ends the wait early. */
async function untilSettled(
  wire: TaskWire,
  first: McpTask,
  signal: AbortSignal,
  send: (method: TaskMethod, params: JsonObject) => Promise<Record<string, unknown>>,
): Promise<McpTask> {
  let task = first;
  let pushed: McpTask | undefined;
  let wake: (() => void) | undefined;
  const stop = wire.watch(first.taskId, (t) => {
    if (isTerminal(t.status) || t.status === 'input_required') {
      pushed = t;
      wake?.();
    }
  });
  try {
    while (!settled(task)) {
      if (!pushed) await pause(pollDelayMs(task), signal, (w) => (wake = w));
      if (pushed) return pushed;
      const got = readTask(await send('tasks/get', { taskId: first.taskId }));
      if (typeof got === 'string') throw new MalformedTask(`tasks/get answered a malformed task: ${got}`);
      if (got.taskId !== first.taskId) throw new MalformedTask(`tasks/get answered for another task (${got.taskId})`);
      task = got;
    }
    return task;
  } finally {
    stop();
  }
}

function settled(task: McpTask): boolean {
  return isTerminal(task.status) || task.status === 'input_required';
}

/** Waits `ms`, or less when woken; rejects when `signal` aborts. */
function pause(ms: number, signal: AbortSignal, setWake: (wake: () => void) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    };
    const onAbort = () => {
      done();
      reject(signal.reason as Error);
    };
    const timer = setTimeout(() => {
      done();
      resolve();
    }, ms);
    setWake(() => {
      done();
      resolve();
    });
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
