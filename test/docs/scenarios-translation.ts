/** docs/translation.md's examples: a 2025-11-25 task from an MCP client, with curl and with the v1 SDK's callToolStream. */
import assert from 'node:assert/strict';
import { assertExit, jsonValues, mcpPost, type ExampleRun, type Scenario } from './example-run.js';

/** The bridge of the quick start, serving its demo toolkit at the documented 127.0.0.1:8080. */
async function quickStartBridge(r: ExampleRun): Promise<() => Promise<void>> {
  await r.cli([], 'http://127.0.0.1:8080/readyz', { status: 200 });
  return () => r.stopAll();
}

/** The JSON-RPC messages of curl's output: server-sent events' `data:` lines, or plain JSON bodies. */
function messages(stdout: string): Record<string, unknown>[] {
  const events = stdout.split('\n').flatMap((l) => (l.startsWith('data: ') ? [JSON.parse(l.slice(6)) as Record<string, unknown>] : []));
  return events.length ? events : (jsonValues(stdout) as Record<string, unknown>[]);
}

export const translationScenarios: Scenario[] = [
  {
    name: 'translation.md: a task from an MCP client (2025-11-25)',
    needs: ['curl'],
    setup: quickStartBridge,
    steps: [
      {
        id: 'tasks-curl',
        run: async (r) => {
          const result = await r.shell('tasks-curl');
          assertExit(result);
          const taskId = /^task (\S+)$/m.exec(result.stdout)?.[1];
          assert.ok(taskId, `the call answered with a task:\n${result.stdout}`);
          const answer = messages(result.stdout).find((m) => m.id === 3) as { result?: Record<string, unknown> } | undefined;
          assert.deepEqual(answer?.result?.structuredContent, { result: 3 }, result.stdout);
          assert.deepEqual(answer?.result?._meta, { 'io.modelcontextprotocol/related-task': { taskId } });
          // "a tasks/get without that mcp-session-id": the task belongs to the session that made it.
          const other = await mcpPost(
            r.url('http://127.0.0.1:8080/mcp'),
            { id: 4, method: 'tasks/get', params: { taskId } },
            { 'mcp-protocol-version': '2025-11-25' },
          );
          assert.match(JSON.stringify(other.answer), /Task not found/);
        },
      },
      {
        id: 'tasks-sdk',
        run: async (r) => void r.configFile('tasks-sdk', 'tasks.mjs'),
      },
      {
        id: 'tasks-sdk-run',
        run: async (r) => {
          const result = await r.shell('tasks-sdk-run');
          assertExit(result);
          assert.match(result.stdout, /^task created: \S+\n(task status: working\n)*task status: completed\nresult: \{"result":3\}\n$/);
        },
      },
    ],
  },
];
