/**
 * A task record as each MCP revision writes it (docs/translation.md, "Tasks"):
 *
 * - 2025-11-25 (core tasks): `Task` with `ttl` and `pollInterval`; a
 *   `CreateTaskResult` wraps it under `task`; the result is fetched with
 *   `tasks/result` and carries `io.modelcontextprotocol/related-task`.
 * - 2026-07-28 (extension `io.modelcontextprotocol/tasks`): a flat `Task`
 *   with `ttlMs` and `pollIntervalMs`; `CreateTaskResult` is that task with
 *   `resultType: "task"`; `tasks/get` answers a `DetailedTask` inlining
 *   `inputRequests` (those not yet answered), `result` or `error`.
 *
 * Pure: records in, JSON out. Integer milliseconds, ISO 8601 times.
 */
import type { TaskRecord } from '../bridge/task-calls.js';
import type { JsonValue } from '../../core/json.js';
import { JSONRPC_INTERNAL_ERROR, type McpErrorReply } from '../../core/mcp-wire.js';

export const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';
export const MODEL_IMMEDIATE_RESPONSE_META_KEY = 'io.modelcontextprotocol/model-immediate-response';

const iso = (ms: number) => new Date(ms).toISOString();

/** 2025-11-25 `Task`. */
export function coreTask(record: TaskRecord): Record<string, unknown> {
  return {
    taskId: record.taskId,
    status: record.status,
    ...(record.statusMessage !== undefined && { statusMessage: record.statusMessage }),
    createdAt: iso(record.createdAt),
    lastUpdatedAt: iso(record.lastUpdatedAt),
    ttl: record.ttlMs,
    pollInterval: record.pollIntervalMs,
  };
}

/** 2025-11-25 `CreateTaskResult`, with the provisional hint hosts may hand the model at once. */
export function coreCreateTaskResult(record: TaskRecord, tool: string): Record<string, unknown> {
  return {
    task: coreTask(record),
    _meta: { [MODEL_IMMEDIATE_RESPONSE_META_KEY]: `The tool ${tool} is running as task ${record.taskId}; its result will follow when it ends.` },
  };
}

/** 2026-07-28 `Task` (the base shape: CreateTaskResult and every DetailedTask start with it). */
export function extensionTask(record: TaskRecord): Record<string, unknown> {
  return {
    taskId: record.taskId,
    status: record.status,
    ...(record.statusMessage !== undefined && { statusMessage: record.statusMessage }),
    createdAt: iso(record.createdAt),
    lastUpdatedAt: iso(record.lastUpdatedAt),
    ttlMs: record.ttlMs,
    pollIntervalMs: record.pollIntervalMs,
  };
}

/** 2026-07-28 `CreateTaskResult`: flat, `resultType: "task"`. */
export function extensionCreateTaskResult(record: TaskRecord): Record<string, unknown> {
  return { resultType: 'task', ...extensionTask(record) };
}

/** 2026-07-28 `DetailedTask` for tasks/get: what the status calls for, inlined. */
export function detailedTask(record: TaskRecord): Record<string, unknown> {
  const task = extensionTask(record);
  switch (record.status) {
    case 'input_required': {
      // A point-in-time snapshot of what is still outstanding: answered keys drop out.
      const pending = Object.entries(record.inputRequests ?? {}).filter(([key]) => !record.inputResponses || !Object.hasOwn(record.inputResponses, key));
      return { ...task, inputRequests: Object.fromEntries(pending) };
    }
    case 'completed':
      return record.outcome?.kind === 'result' ? { ...task, result: record.outcome.result } : task;
    case 'failed':
      return record.outcome?.kind === 'error'
        ? { ...task, error: record.outcome.error }
        : { ...task, error: { code: JSONRPC_INTERNAL_ERROR, message: record.statusMessage ?? 'The task failed.' } };
    default:
      return task;
  }
}

/**
 * 2025-11-25 `tasks/result` of a terminal task: exactly what the tools/call would have answered, with the
 * related-task key in the result's `_meta`; a JSON-RPC error as that error. A cancelled task has no result.
 */
export function coreTaskPayload(record: TaskRecord): { result: Record<string, unknown> } | { error: McpErrorReply } {
  const outcome = record.outcome;
  if (!outcome) return { error: { code: JSONRPC_INTERNAL_ERROR, message: `Task ${record.taskId} was cancelled before it ended: it has no result.` } };
  if (outcome.kind === 'error')
    return {
      error: { code: outcome.error.code, message: outcome.error.message, ...(outcome.error.data !== undefined && { data: outcome.error.data as JsonValue }) },
    };
  const result = outcome.result as Record<string, unknown>;
  const meta = result._meta !== null && typeof result._meta === 'object' ? (result._meta as Record<string, unknown>) : {};
  return { result: { ...result, _meta: { ...meta, [RELATED_TASK_META_KEY]: { taskId: record.taskId } } } };
}

/** A URL-mode elicitation as a 2026-07-28 task input request. */
export function urlInputRequest(message: string, url: string): Record<string, unknown> {
  return { method: 'elicitation/create', params: { mode: 'url', message, url } };
}
