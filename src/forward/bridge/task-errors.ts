/** The errors the forward task surface answers with when it cannot do what was asked (task-calls.ts, task-queries.ts). */
import { JSONRPC_MISSING_REQUIRED_CLIENT_CAPABILITY, JSONRPC_SERVER_REFUSED, TASKS_EXTENSION, type McpErrorReply } from '../../core/mcp-wire.js';

/** -32021 for a request that needs the tasks extension its client did not declare; `message` says what needs it. */
export function missingTasksExtension(message: string): McpErrorReply {
  return { code: JSONRPC_MISSING_REQUIRED_CLIENT_CAPABILITY, message, data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } } };
}

/** -32000 `task_store_unavailable`: the task store does not answer; `message` says what cannot be done now. */
export function taskStoreUnavailable(message: string): McpErrorReply {
  return { code: JSONRPC_SERVER_REFUSED, message, data: { kind: 'task_store_unavailable', retry_after_ms: 1000 } };
}
