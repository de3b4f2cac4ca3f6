/**
 * The 2025-11-25 task wire as the oxp-server reads it from an MCP server
 * (the requestor side), pure: a `CreateTaskResult`, a `Task` from
 * `tasks/get` or `notifications/tasks/status`, and how long to wait before
 * the next `tasks/get`.
 *
 * Everything here comes from an untrusted server: a task id is a bounded
 * string of printable characters (it goes back into requests and into log
 * lines), a status is one of the five the revision defines, and a
 * `pollInterval` is honoured within bounds (neither a busy loop nor an hour
 * between two looks).
 */
import { isPlainObject } from './json.js';

export type McpTaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

export interface McpTask {
  taskId: string;
  status: McpTaskStatus;
  statusMessage?: string;
  /** The server's suggested time between two `tasks/get`, in ms, as sent (see pollDelayMs). */
  pollInterval?: number;
}

const STATUSES: ReadonlySet<string> = new Set<McpTaskStatus>(['working', 'input_required', 'completed', 'failed', 'cancelled']);
const TERMINAL: ReadonlySet<McpTaskStatus> = new Set<McpTaskStatus>(['completed', 'failed', 'cancelled']);

/** Longest task id accepted: ids are UUIDs or hex in practice; the bound keeps requests and log lines small. */
export const MAX_TASK_ID_LENGTH = 256;
/** Longest status message kept (it reaches developer_message and logs). */
const MAX_STATUS_MESSAGE = 500;
/** `tasks/get` every second when the server suggests nothing. */
export const DEFAULT_POLL_MS = 1_000;
/** Never more often than this, whatever the server suggests (0 would be a busy loop). */
export const MIN_POLL_MS = 100;
/** Never less often than this: a status notification may be lost, and the OXP client is waiting. */
export const MAX_POLL_MS = 30_000;

// Printable, no whitespace: it is echoed in requests and log lines.
const TASK_ID_RE = /^[\x21-\x7e]+$/;

export function isTerminal(status: McpTaskStatus): boolean {
  return TERMINAL.has(status);
}

/** A `Task` object (from `tasks/get`, a status notification, or inside a CreateTaskResult), or why it is not one. */
export function readTask(raw: unknown): McpTask | string {
  if (!isPlainObject(raw)) return 'the task is not an object';
  const { taskId, status, statusMessage, pollInterval } = raw;
  if (typeof taskId !== 'string' || taskId.length === 0 || taskId.length > MAX_TASK_ID_LENGTH || !TASK_ID_RE.test(taskId))
    return `taskId is not a printable string of 1 to ${MAX_TASK_ID_LENGTH} characters`;
  if (typeof status !== 'string' || !STATUSES.has(status)) return `status ${JSON.stringify(status)} is not a task status`;
  const task: McpTask = { taskId, status: status as McpTaskStatus };
  if (typeof statusMessage === 'string' && statusMessage !== '') task.statusMessage = statusMessage.slice(0, MAX_STATUS_MESSAGE);
  if (typeof pollInterval === 'number' && Number.isFinite(pollInterval)) task.pollInterval = pollInterval;
  return task;
}

/**
 * The answer to a task-augmented `tools/call`: the created task, or, from a
 * server that ran the call at once (it may ignore the augmentation), the
 * plain result; else why it is neither.
 */
export function readCreateTaskResult(raw: Record<string, unknown>): { task: McpTask } | { result: Record<string, unknown> } | { problem: string } {
  if (raw.task !== undefined) {
    const task = readTask(raw.task);
    return typeof task === 'string' ? { problem: `the CreateTaskResult is malformed: ${task}` } : { task };
  }
  if (Array.isArray(raw.content)) return { result: raw };
  return { problem: 'the answer to a task-augmented tools/call is neither a CreateTaskResult nor a CallToolResult' };
}

/** How long to wait before the next `tasks/get`: the server's `pollInterval` within [MIN_POLL_MS, MAX_POLL_MS], else DEFAULT_POLL_MS. */
export function pollDelayMs(task: Pick<McpTask, 'pollInterval'>): number {
  if (task.pollInterval === undefined) return DEFAULT_POLL_MS;
  return Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, Math.round(task.pollInterval)));
}
