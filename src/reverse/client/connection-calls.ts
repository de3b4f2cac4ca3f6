/**
 * The calls in flight on one MCP connection, and the one run as a task.
 *
 * A legacy `elicitation/create` in URL mode is the authorization challenge of
 * the call it belongs to: the task its `_meta` names (a task's requests for
 * input come through `tasks/result`, each naming its task), else the one plain
 * call in flight when there is exactly one. No SDK here (mcp-client-sdk.ts is the
 * adapter): SDK errors are classified by the function it passes.
 */
import { isPlainObject, type JsonObject } from '../../core/json.js';
import type { McpCallOutcome } from '../../core/mcp-to-oxp.js';
import type { McpCallToolResult, McpTool } from '../../core/mcp-wire.js';
import { callToolAsTask, type TaskCallEnd, type TaskWire } from './task-call.js';

/**
 * A call in flight: a legacy `elicitation/create` in URL mode is attributed to the task it names (`_meta`
 * related-task), else to the one plain call in flight when there is exactly one.
 */
/** One `tools/call` (McpConnection.callTool): plain, or with `asTask` run as a task, `onTask` told its id. */
export interface CallOptions {
  signal: AbortSignal;
  timeoutMs: number;
  meta?: JsonObject;
  asTask?: boolean;
  onTask?: (taskId: string) => void;
}

export interface InFlightCall {
  urlElicitations: Record<string, unknown>;
  taskId?: string;
}

/** The `_meta` key by which 2025-11-25 messages name the task they belong to. */
const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';

/** The call an elicitation belongs to: the task it names, else the only plain call in flight. */
export function callAsking(inFlight: ReadonlySet<InFlightCall>, params: Record<string, unknown>): InFlightCall | undefined {
  const meta = isPlainObject(params._meta) ? params._meta[RELATED_TASK_META_KEY] : undefined;
  const taskId = isPlainObject(meta) && typeof meta.taskId === 'string' ? meta.taskId : undefined;
  if (taskId !== undefined) return [...inFlight].find((c) => c.taskId === taskId);
  const plain = [...inFlight].filter((c) => c.taskId === undefined);
  return plain.length === 1 ? plain[0] : undefined;
}

/** One `tools/call` run as a task (task-call.ts); its end as an outcome, URL elicitations of the task as for a plain call. */
export async function callTask(
  wire: TaskWire,
  inFlight: Set<InFlightCall>,
  tool: McpTool,
  args: JsonObject,
  options: CallOptions,
  outcomeOfError: (error: unknown) => McpCallOutcome,
): Promise<McpCallOutcome> {
  const call: InFlightCall = { urlElicitations: {} };
  inFlight.add(call);
  try {
    const end = await callToolAsTask(wire, tool.name, args, {
      signal: options.signal,
      timeoutMs: options.timeoutMs,
      ...(options.meta ? { meta: options.meta } : {}),
      onTask: (taskId) => {
        call.taskId = taskId;
        options.onTask?.(taskId);
      },
    });
    if (Object.keys(call.urlElicitations).length > 0) return { kind: 'input_required', inputRequests: call.urlElicitations };
    return outcomeOfTask(end);
  } catch (error) {
    const outcome = outcomeOfError(error);
    // Once the server created the task, it may have run: never repeated.
    return outcome.kind === 'unreachable' && call.taskId !== undefined ? { ...outcome, retryable: false } : outcome;
  } finally {
    inFlight.delete(call);
  }
}

function outcomeOfTask(end: TaskCallEnd): McpCallOutcome {
  switch (end.kind) {
    case 'result':
      return Array.isArray(end.raw.content)
        ? { kind: 'result', result: end.raw as unknown as McpCallToolResult }
        : {
            kind: 'no_result',
            message: 'The tool server answered the call in a way the bridge could not understand.',
            detail: 'tasks/result has no content array',
          };
    case 'deadline':
    case 'abandoned':
      return { kind: 'timeout' };
    case 'no_result':
      return end;
  }
}
