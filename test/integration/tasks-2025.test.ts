/**
 * MCP tasks at 2025-11-25 (core tasks), forward direction: the real CLI as a
 * child process (stdio, and HTTP), driven by the v1 SDK's experimental tasks
 * client (`client.experimental.tasks.callToolStream`) against OXP tools that
 * take their time. Every message the client receives is validated against
 * the 2025-11-25 schema (test/schemas). Older revisions see no task fields.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startOxpFixture, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { startCli, type CliProcess } from '../helpers/cli-process.js';
import { cleanChildEnv, REPO_ROOT } from '../helpers/it-bridge.js';
import { connectHttp, connectStdio, errorCode, recordTransport, spec, WireLog } from '../helpers/it-clients.js';
import { AUTH_URL, authorizationFixture, taskConfigFile, taskFixtureTools, until } from '../helpers/task-fixtures.js';
import { cliArgs } from '../helpers/ts-entry.js';

interface Connected {
  client: ClientV1;
  log: WireLog;
  close(): Promise<void>;
}

async function v1Stdio(configFile: string): Promise<Connected> {
  const log = new WireLog();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: cliArgs(['--transport', 'stdio', '--config', configFile, '--log-level', 'warn']),
    cwd: REPO_ROOT,
    env: cleanChildEnv(),
    stderr: 'pipe',
  });
  recordTransport(transport, log);
  const client = new ClientV1({ name: 'tasks-v1', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  return { client, log, close: () => client.close() };
}

async function v1Http(url: string): Promise<Connected> {
  const log = new WireLog();
  const transport = new StreamableHTTPClientTransport(new URL(url));
  recordTransport(transport, log);
  const client = new ClientV1({ name: 'tasks-v1', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  return { client, log, close: () => client.close() };
}

type StreamMessage = { type: string; task?: { taskId: string; status: string }; result?: unknown; error?: unknown };

async function stream(client: ClientV1, name: string, args: Record<string, unknown>, task: { ttl?: number } = {}): Promise<StreamMessage[]> {
  const messages: StreamMessage[] = [];
  for await (const message of client.experimental.tasks.callToolStream({ name, arguments: args }, CallToolResultSchema, { task })) messages.push(message);
  return messages;
}

function suite(transport: 'stdio' | 'http') {
  describe(`2025-11-25 tasks over ${transport}, v1 experimental tasks client`, () => {
    let fixture: OxpFixtureServer;
    let cli: CliProcess | undefined;
    let conn: Connected;

    before(async () => {
      fixture = await startOxpFixture({ tools: taskFixtureTools() });
      const config = taskConfigFile(fixture.url);
      if (transport === 'stdio') conn = await v1Stdio(config);
      else {
        cli = await startCli(['--config', config, '--port', '0', '--log-level', 'info'], {});
        conn = await v1Http(cli.url);
      }
    });
    after(async () => {
      await conn?.close();
      await cli?.stop();
      await fixture?.close();
    });

    it('declares the tasks capability and each tool its execution.taskSupport', async () => {
      const init = conn.log.received('initialize')[0]?.result as { protocolVersion: string; capabilities: Record<string, unknown> };
      assert.equal(init.protocolVersion, '2025-11-25');
      assert.deepEqual(init.capabilities.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
      const { tools } = await conn.client.listTools();
      const support = Object.fromEntries(tools.map((t) => [t.name, (t.execution as { taskSupport?: string } | undefined)?.taskSupport]));
      assert.deepEqual(support, {
        echo: 'optional',
        failing_job: 'optional',
        hang: 'optional',
        plain_only: 'forbidden',
        research: 'required',
        slow_work: 'optional',
      });
      conn.log.assertValid('2025-11-25');
    });

    it('callToolStream: a CreateTaskResult at once, polled to completed, the result with related-task', async () => {
      const started = Date.now();
      const messages = await stream(conn.client, 'slow_work', { label: 'a' }, { ttl: 120_000 });
      const created = messages[0];
      assert.equal(created?.type, 'taskCreated', JSON.stringify(messages));
      assert.equal(created.task?.status, 'working');
      assert.ok(/^[A-Za-z0-9_-]{24}$/.test(created.task.taskId), 'a 144-bit url-safe id');
      assert.ok(messages.some((m) => m.type === 'taskStatus' && m.task?.status === 'working'));
      const last = messages[messages.length - 1]!;
      assert.equal(last.type, 'result', JSON.stringify(last));
      const result = last.result as { content: { text: string }[]; _meta: Record<string, unknown> };
      assert.equal(result.content[0]?.text, 'done a');
      assert.deepEqual(result._meta['io.modelcontextprotocol/related-task'], { taskId: created.task.taskId });
      assert.ok(Date.now() - started >= 1400, 'the OXP call ran its 1.5 s');
      const createResponse = conn.log.received('tools/call').at(-1)!.result as { task: { ttl: number; pollInterval: number } };
      assert.equal(createResponse.task.ttl, 120_000, 'the requested ttl, within bounds');
      assert.equal(createResponse.task.pollInterval, 100);
      conn.log.assertValid('2025-11-25');
    });

    it('a tool error fails the task; tasks/result still returns the tool result, isError', async () => {
      const messages = await stream(conn.client, 'failing_job', {});
      const taskId = messages[0]!.task!.taskId;
      const status = messages.filter((m) => m.type === 'taskStatus').at(-1);
      assert.equal(status?.task?.status, 'failed');
      const payload = await conn.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
      assert.equal(payload.isError, true);
      assert.match(JSON.stringify(payload.content), /the job failed/);
      conn.log.assertValid('2025-11-25');
    });

    it('tasks/cancel aborts the OXP request (the server sees the connection close); the task stays cancelled', async () => {
      const create = await conn.client.request(
        { method: 'tools/call', params: { name: 'hang', arguments: {}, task: { ttl: 60_000 } } },
        (await import('@modelcontextprotocol/sdk/types.js')).CreateTaskResultSchema,
      );
      const taskId = create.task.taskId;
      await until(() => fixture.callCount('Hang.Forever') > 0, 10_000, 'the OXP call starts');
      const cancelled = await conn.client.experimental.tasks.cancelTask(taskId);
      assert.equal(cancelled.status, 'cancelled');
      await until(() => fixture.abandonedCalls.length > 0, 10_000, 'the OXP server sees the connection close');
      assert.equal((await conn.client.experimental.tasks.getTask(taskId)).status, 'cancelled');
      await assert.rejects(conn.client.experimental.tasks.cancelTask(taskId), (e: unknown) => errorCode(e) === -32602);
      conn.log.assertValid('2025-11-25');
    });

    it("tasks/list lists the caller's tasks, newest first; unknown and guessed ids answer -32602", async () => {
      const { tasks } = await conn.client.experimental.tasks.listTasks();
      assert.ok(tasks.length >= 3);
      const times = tasks.map((t) => Date.parse(t.createdAt));
      assert.deepEqual(
        times,
        [...times].sort((a, b) => b - a),
      );
      for (const id of ['nope', 'AAAAAAAAAAAAAAAAAAAAAAAA', '../../etc/passwd']) {
        await assert.rejects(conn.client.experimental.tasks.getTask(id), (e: unknown) => errorCode(e) === -32602);
        await assert.rejects(conn.client.experimental.tasks.getTaskResult(id, CallToolResultSchema), (e: unknown) => errorCode(e) === -32602);
      }
      await assert.rejects(conn.client.experimental.tasks.listTasks('not-a-cursor'), (e: unknown) => errorCode(e) === -32602);
      conn.log.assertValid('2025-11-25');
    });

    it('a required tool refuses a plain call, a forbidden one a task (-32601)', async () => {
      // The v1 client refuses this itself; the request goes out raw to see the server's answer.
      await assert.rejects(
        conn.client.request({ method: 'tools/call', params: { name: 'research', arguments: {} } }, CallToolResultSchema),
        (e: unknown) => errorCode(e) === -32601,
      );
      const messages = await stream(conn.client, 'plain_only', {});
      assert.equal(messages.at(-1)?.type, 'error');
      assert.equal(errorCode(messages.at(-1)?.error), -32601);
      const plain = await conn.client.callTool({ name: 'echo', arguments: { label: 'x' } });
      assert.equal((plain.content as { text: string }[])[0]?.text, 'echo x');
      const research = await stream(conn.client, 'research', { label: 'r' });
      assert.equal((research.at(-1)?.result as { content: { text: string }[] }).content[0]?.text, 'found r');
      conn.log.assertValid('2025-11-25');
    });

    if (transport === 'stdio')
      it('the stdio client is sent notifications/tasks/status as its task changes', async () => {
        const before = conn.log.received('notifications/tasks/status').length;
        await stream(conn.client, 'slow_work', { label: 'n' });
        await until(() => conn.log.received('notifications/tasks/status').length > before, 5000, 'a status notification');
        const last = conn.log.received('notifications/tasks/status').at(-1)!.params as { status: string };
        assert.equal(last.status, 'completed');
        conn.log.assertValid('2025-11-25');
      });
  });
}

suite('stdio');
suite('http');

describe('revisions before 2025-11-25 see no task fields, and a task parameter changes nothing', () => {
  let fixture: OxpFixtureServer;
  before(async () => {
    fixture = await startOxpFixture({ tools: taskFixtureTools() });
  });
  after(async () => {
    await fixture?.close();
  });

  for (const s of [spec('v1', '2025-06-18'), spec('v2-legacy', '2025-03-26'), spec('v2-legacy', '2024-11-05')]) {
    it(s.label, async () => {
      const config = taskConfigFile(fixture.url);
      const session = await connectStdio(s, {
        command: process.execPath,
        args: cliArgs(['--transport', 'stdio', '--config', config, '--log-level', 'warn']),
        cwd: REPO_ROOT,
        env: cleanChildEnv(),
      });
      try {
        const init = session.log.received('initialize')[0]?.result as { capabilities: Record<string, unknown> };
        assert.equal(init.capabilities.tasks, undefined);
        const { tools } = await session.listTools();
        assert.ok(tools.every((t) => !('execution' in t)));
        // A required tool is still callable where the revision has no tasks: as a plain call.
        const research = await session.callTool('research', { label: 'old' });
        assert.equal(research.content[0]?.text, 'found old');
        session.log.assertValid(s.revision);
      } finally {
        await session.close();
      }
    });
  }

  it('v2 legacy client at 2025-11-25 (no tasks runtime): sees taskSupport, calls optional tools plainly, a required one refused -32601', async () => {
    const session = await connectStdio(spec('v2-legacy', '2025-11-25'), {
      command: process.execPath,
      args: cliArgs(['--transport', 'stdio', '--config', taskConfigFile(fixture.url), '--log-level', 'warn']),
      cwd: REPO_ROOT,
      env: cleanChildEnv(),
    });
    try {
      const { tools } = await session.listTools();
      assert.deepEqual(tools.find((t) => t.name === 'research')?.execution, { taskSupport: 'required' });
      const slow = await session.callTool('slow_work', { label: 'v2' });
      assert.equal(slow.content[0]?.text, 'done v2');
      await assert.rejects(session.callTool('research', {}), (e: unknown) => errorCode(e) === -32601);
      session.log.assertValid('2025-11-25');
    } finally {
      await session.close();
    }
  });

  it('v2 legacy client at 2025-06-18 over HTTP: a task parameter is ignored (plain result)', async () => {
    const cli = await startCli(['--config', taskConfigFile(fixture.url), '--port', '0', '--log-level', 'info'], {});
    const session = await connectHttp(spec('v2-legacy', '2025-06-18'), cli.url);
    try {
      const res = await fetch(cli.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { label: 'y' }, task: { ttl: 1000 } } }),
      });
      const text = await res.text();
      assert.match(text, /"text":"echo y"/);
      assert.doesNotMatch(text, /taskId/);
    } finally {
      await session.close();
      await cli.stop();
    }
  });
});

describe('2025-11-25: an OXP authorization met mid-task', () => {
  let fixture: OxpFixtureServer;
  let auth: Awaited<ReturnType<typeof authorizationFixture>>;
  let config: string;

  before(async () => {
    auth = await authorizationFixture();
    fixture = await startOxpFixture({ tools: [...taskFixtureTools(), auth.tool] });
    config = taskConfigFile(fixture.url, { upstream: { authorizationPollMs: 50, authorizationCheckOrigins: [auth.checkOrigin] } });
  });
  after(async () => {
    await fixture?.close();
    auth?.close();
  });

  it('over stdio: the task is input_required, tasks/result sends the URL elicitation naming the task, the call resumes with its call_id', async () => {
    const log = new WireLog();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: cliArgs(['--transport', 'stdio', '--config', config, '--log-level', 'warn']),
      cwd: REPO_ROOT,
      env: cleanChildEnv(),
      stderr: 'pipe',
    });
    recordTransport(transport, log);
    const client = new ClientV1({ name: 'tasks-v1', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
    const shown: Record<string, unknown>[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      shown.push(request.params);
      return { action: 'accept' };
    });
    await client.connect(transport);
    try {
      auth.calls.length = 0;
      const messages = await stream(client, 'mail_read', {});
      const taskId = messages[0]!.task!.taskId;
      assert.ok(
        messages.some((m) => m.type === 'taskStatus' && m.task?.status === 'input_required'),
        JSON.stringify(messages),
      );
      assert.equal(messages.at(-1)?.type, 'result', JSON.stringify(messages.at(-1)));
      assert.equal((messages.at(-1)!.result as { content: { text: string }[] }).content[0]?.text, 'mail read');
      assert.equal(shown.length, 1);
      assert.equal(shown[0]!.mode, 'url');
      assert.equal(shown[0]!.url, AUTH_URL);
      assert.equal(typeof shown[0]!.elicitationId, 'string');
      assert.deepEqual((shown[0]!._meta as Record<string, unknown>)['io.modelcontextprotocol/related-task'], { taskId });
      assert.equal(auth.calls.length, 2);
      assert.equal(auth.calls[0], auth.calls[1], 'the resumed call sends the same call_id');
      log.assertValid('2025-11-25');
    } finally {
      await client.close();
    }
  });

  it('over HTTP (no request can reach the client): the task fails with what the call would answer, -32042 with the URL', async () => {
    const cli = await startCli(['--config', config, '--port', '0', '--log-level', 'info'], {});
    const log = new WireLog();
    const transport = new StreamableHTTPClientTransport(new URL(cli.url));
    recordTransport(transport, log);
    const client = new ClientV1({ name: 'tasks-v1', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
    await client.connect(transport);
    try {
      const messages = await stream(client, 'mail_read', {});
      const taskId = messages[0]!.task!.taskId;
      assert.equal(messages.filter((m) => m.type === 'taskStatus').at(-1)?.task?.status, 'failed');
      await assert.rejects(client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema), (e: unknown) => {
        assert.equal(errorCode(e), -32042);
        assert.match(JSON.stringify((e as { data?: unknown }).data), /auth\.example\.test/);
        return true;
      });
      log.assertValid('2025-11-25');
    } finally {
      await client.close();
      await cli.stop();
    }
  });
});
