/**
 * Hostile MCP scenarios: 2025-11-25 task servers that misbehave (served by ../hostile-mcp-server.ts, written with
 * ../mcp-kit.ts). Each declares task-augmented tools/call and lists one tool, `job`, that requires tasks.
 */
import type { HostileMcpScenario, JsonRpcMessage, McpOut } from '../mcp-kit.js';

const JOB = { name: 'job', description: 'A task job.', inputSchema: { type: 'object', properties: {} }, execution: { taskSupport: 'required' } };
const TASK_ID = 'hostile-task-1';

/** A task as the server reports it, at `pollInterval` (which a hostile server may set to 0 or negative). */
function task(status: string, pollInterval: number, taskId = TASK_ID): Record<string, unknown> {
  const now = new Date().toISOString();
  return { taskId, status, createdAt: now, lastUpdatedAt: now, ttl: 60_000, pollInterval };
}

/**
 * A task server: `initialize` with the tasks capability, tools/call with the task, tasks/* as `onTaskRequest` says
 * (a result to send, or undefined for silence).
 */
function taskServer(onTaskRequest: (method: string, message: JsonRpcMessage) => unknown): HostileMcpScenario {
  return {
    tools: () => [JOB],
    intercept: (message: JsonRpcMessage, out: McpOut) => {
      const reply = (result: unknown) => out.send({ jsonrpc: '2.0', id: message.id, result });
      if (message.method === 'initialize') {
        reply({
          protocolVersion: '2025-11-25',
          capabilities: { tools: {}, tasks: { cancel: {}, requests: { tools: { call: {} } } } },
          serverInfo: { name: 'hostile-tasks', version: '1.0.0' },
        });
        return true;
      }
      if (message.method === 'tools/call') {
        reply({ task: task('working', 0) });
        return true;
      }
      if (message.method?.startsWith('tasks/')) {
        const result = onTaskRequest(message.method, message);
        if (result !== undefined) reply(result);
        return true;
      }
      return false;
    },
  };
}

/** tasks/get polls seen by 'task-busy-poll', with when each came. */
const polls: number[] = [];

export const TASK_SCENARIOS: Record<string, HostileMcpScenario> = {
  /** pollInterval 0 on every answer (a busy loop for a client that obeys); completes after 5 polls, and tells the gaps. */
  'task-busy-poll': taskServer((method) => {
    if (method === 'tasks/get') {
      polls.push(Date.now());
      return task(polls.length >= 5 ? 'completed' : 'working', 0);
    }
    if (method === 'tasks/result') {
      const gaps = polls.slice(1).map((at, i) => at - polls[i]!);
      return { content: [{ type: 'text', text: `polls ${polls.length}, shortest gap ${Math.min(...gaps)} ms` }] };
    }
    return {};
  }),
  /** tasks/get answers a status no revision defines. */
  'task-bad-status': taskServer((method) => (method === 'tasks/get' ? task('banana', 100) : method === 'tasks/cancel' ? task('cancelled', 100) : undefined)),
  /** tasks/get answers about another task. */
  'task-other-id': taskServer((method) => (method === 'tasks/get' ? task('completed', 100, 'someone-elses-task') : {})),
  /** The task completes, and tasks/result never answers. */
  'task-silent-result': taskServer((method) => (method === 'tasks/get' ? task('completed', 100) : method === 'tasks/cancel' ? {} : undefined)),
};
