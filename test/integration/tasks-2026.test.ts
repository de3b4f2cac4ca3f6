/**
 * MCP tasks at 2026-07-28 (the extension `io.modelcontextprotocol/tasks`),
 * forward direction, against the real CLI as a child process over HTTP: the
 * extension advertised, the server deciding (a `required` tool's call is a
 * task at once, an `optional` one's when it is still running after
 * tasks.taskAfterMs, only for requests declaring the extension), tasks/get
 * with the Mcp-Name check, tasks/update, tasks/cancel, an OXP authorization
 * met mid-task as the task's input_required. The v2 client (modern) lists
 * and calls; task methods go raw (the SDK refuses to send them at
 * 2026-07-28). Every message validates against the 2026-07-28 schema or the
 * extension's (test/schemas/ext-tasks).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { createInterface } from 'node:readline';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startOxpFixture, type FixtureTool, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { MODERN_META, modernHeaders } from '../helpers/bridge-harness.js';
import { MODERN_REVISION } from '../helpers/modern-revision.js';
import { startCli, type CliProcess } from '../helpers/cli-process.js';
import { cleanChildEnv, REPO_ROOT } from '../helpers/it-bridge.js';
import { connectHttp, spec } from '../helpers/it-clients.js';
import { exchange, type RawExchange } from '../helpers/it-http.js';
import { assertValidServerMessage } from '../helpers/mcp-schema.js';
import { taskConfigFile, taskFixtureTools, until } from '../helpers/task-fixtures.js';
import { listen } from '../helpers/task-listen.js';
import { cliArgs } from '../helpers/ts-entry.js';

const EXT = 'io.modelcontextprotocol/tasks';
const AUTH_URL = 'https://auth.example.test/authorize?state=abc';

interface Caller {
  ext: boolean;
  token?: string;
  urlElicitation?: boolean;
}

/** One 2026-07-28 request, its answer validated (methods named so the validator knows what a result answers). */
async function call(url: string, method: string, params: Record<string, unknown>, who: Caller, headers: Record<string, string> = {}): Promise<RawExchange> {
  const capabilities = { ...(who.ext ? { extensions: { [EXT]: {} } } : {}), ...(who.urlElicitation ? { elicitation: { url: {} } } : {}) };
  const name = method === 'tools/call' ? params.name : typeof params.taskId === 'string' ? params.taskId : undefined;
  const res = await exchange(url, {
    headers: { ...modernHeaders(method, name as string | undefined), ...(who.token ? { authorization: `Bearer ${who.token}` } : {}), ...headers },
    body: { jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: { ...MODERN_META, 'io.modelcontextprotocol/clientCapabilities': capabilities } } },
  });
  for (const message of res.messages) assertValidServerMessage(MODERN_REVISION, message, method);
  return res;
}

const resultOf = (res: RawExchange) => res.messages[0]?.result as Record<string, unknown>;
const errorOf = (res: RawExchange) => res.messages[0]?.error as { code: number; message: string; data?: unknown };

async function settle(url: string, taskId: string, who: Caller, until = ['completed', 'failed', 'cancelled']): Promise<Record<string, unknown>> {
  const end = Date.now() + 15_000;
  for (;;) {
    const task = resultOf(await call(url, 'tasks/get', { taskId }, who));
    if (until.includes(task.status as string)) return task;
    if (Date.now() > end) throw new Error(`task ${taskId} still ${String(task.status)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('2026-07-28 tasks extension over HTTP (the CLI as a child process)', () => {
  let fixture: OxpFixtureServer;
  let cli: CliProcess;
  let checkServer: Server;
  let checkPolls = 0;
  const authorized = new Set<string>();
  const authCalls: string[] = [];
  const ext: Caller = { ext: true };
  const plain: Caller = { ext: false };

  before(async () => {
    checkServer = createServer((_req, res) => {
      checkPolls += 1;
      for (const id of authCalls) authorized.add(id);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ status: 'completed' }));
    });
    await new Promise<void>((r) => checkServer.listen(0, '127.0.0.1', r));
    const checkUrl = `http://127.0.0.1:${(checkServer.address() as AddressInfo).port}/status`;
    const authTool: FixtureTool = {
      id: 'Mail.Read',
      name: 'mail_read',
      version: '1.0.0',
      input_schema: { type: 'object' },
      requirements: { authorization: [{ id: 'google', oauth2: { scopes: ['mail'] } }] },
      handler: (req) => {
        authCalls.push(req.call_id!);
        if (authorized.has(req.call_id!)) return { value: 'mail read' };
        return {
          http: {
            status: 400,
            body: { message: 'Authorization required', missing_requirements: { authorization: [{ id: 'google', url: AUTH_URL, check_url: checkUrl }] } },
          },
        };
      },
    };
    fixture = await startOxpFixture({ tools: [...taskFixtureTools(), authTool] });
    const config = taskConfigFile(fixture.url, {
      upstream: {
        authorizationPollMs: 50,
        authorizationCheckOrigins: [new URL(checkUrl).origin],
        toolSettings: [
          { tools: ['research', 'mail_read'], taskSupport: 'required' },
          { tools: ['plain_only'], taskSupport: 'forbidden' },
        ],
      },
      tasks: { taskAfterMs: 100 },
    });
    cli = await startCli(['--config', config, '--port', '0', '--log-level', 'info'], {});
  });
  after(async () => {
    await cli?.stop();
    await fixture?.close();
    checkServer?.close();
  });

  it('server/discover advertises the extension (no 2025 tasks capability); tools carry no execution field', async () => {
    const discover = await call(cli.url, 'server/discover', {}, ext);
    const capabilities = resultOf(discover).capabilities as Record<string, unknown>;
    assert.deepEqual(capabilities.extensions, { [EXT]: {} });
    assert.equal(capabilities.tasks, undefined);
    const session = await connectHttp(spec('v2-modern', '2026-07-28'), cli.url);
    try {
      const { tools } = await session.listTools();
      assert.ok(tools.length >= 6 && tools.every((t) => !('execution' in t)));
      const echo = await session.callTool('echo', { label: 'v2' });
      assert.equal(echo.content[0]?.text, 'echo v2');
      session.log.assertValid('2026-07-28');
    } finally {
      await session.close();
    }
  });

  it("a required tool's call is a task at once; tasks/get polls it to completed with the result inlined", async () => {
    const created = resultOf(await call(cli.url, 'tools/call', { name: 'research', arguments: { label: 'q' } }, ext));
    assert.equal(created.resultType, 'task');
    assert.equal(created.status, 'working');
    assert.ok(!('task' in created) && !('ttl' in created) && !('pollInterval' in created) && !('content' in created));
    assert.equal(created.pollIntervalMs, 100);
    assert.equal(created.ttlMs, 3_600_000);
    const done = await settle(cli.url, created.taskId as string, ext);
    assert.equal(done.status, 'completed');
    assert.equal(done.resultType, 'complete');
    const result = done.result as { content: { text: string }[]; _meta?: Record<string, unknown> };
    assert.equal(result.content[0]?.text, 'found q');
    assert.equal(result._meta?.['io.modelcontextprotocol/related-task'], undefined);
  });

  it("an optional tool's call stays a plain result when short, and becomes a task when still running after taskAfterMs", async () => {
    const quick = resultOf(await call(cli.url, 'tools/call', { name: 'echo', arguments: { label: 'e' } }, ext));
    assert.equal(quick.resultType, 'complete');
    const started = Date.now();
    const slow = resultOf(await call(cli.url, 'tools/call', { name: 'slow_work', arguments: { label: 's' } }, ext));
    assert.equal(slow.resultType, 'task');
    assert.ok(Date.now() - started < 1200, 'answered long before the 1.5 s call ended');
    const done = await settle(cli.url, slow.taskId as string, ext);
    assert.equal((done.result as { content: { text: string }[] }).content[0]?.text, 'done s');
    // A forbidden tool never becomes a task.
    assert.equal(resultOf(await call(cli.url, 'tools/call', { name: 'plain_only', arguments: {} }, ext)).resultType, 'complete');
  });

  it('a tool error completes the task with result.isError (failed is for protocol errors)', async () => {
    const created = resultOf(await call(cli.url, 'tools/call', { name: 'failing_job', arguments: {} }, ext));
    assert.equal(created.resultType, 'task');
    const done = await settle(cli.url, created.taskId as string, ext);
    assert.equal(done.status, 'completed');
    assert.equal((done.result as { isError?: boolean }).isError, true);
  });

  it('without the extension: plain calls, -32021 for a required tool and for the task methods', async () => {
    const slow = resultOf(await call(cli.url, 'tools/call', { name: 'slow_work', arguments: { label: 'p' } }, plain));
    assert.equal(slow.resultType, 'complete');
    const refused = errorOf(await call(cli.url, 'tools/call', { name: 'research', arguments: {} }, plain));
    assert.equal(refused.code, -32021);
    assert.deepEqual(refused.data, { requiredCapabilities: { extensions: { [EXT]: {} } } });
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update'])
      assert.equal(errorOf(await call(cli.url, method, { taskId: 'x'.repeat(24), inputResponses: {} }, plain)).code, -32021, method);
  });

  it('tasks/cancel: an empty ack, the OXP request aborted, cancelled seen on tasks/get; again: the same ack; unknown: -32602', async () => {
    const created = resultOf(await call(cli.url, 'tools/call', { name: 'hang', arguments: {} }, ext));
    const taskId = created.taskId as string;
    await until(() => fixture.callCount('Hang.Forever') > 0, 10_000, 'the OXP call starts');
    const ack = resultOf(await call(cli.url, 'tasks/cancel', { taskId }, ext));
    assert.deepEqual(Object.keys(ack).sort(), ['_meta', 'resultType']);
    assert.equal(ack.resultType, 'complete');
    assert.equal((await settle(cli.url, taskId, ext)).status, 'cancelled');
    await until(() => fixture.abandonedCalls.length > 0, 10_000, 'the OXP server sees the connection close');
    assert.equal(resultOf(await call(cli.url, 'tasks/cancel', { taskId }, ext)).resultType, 'complete');
    assert.equal(errorOf(await call(cli.url, 'tasks/cancel', { taskId: 'nope' }, ext)).code, -32602);
    assert.equal(errorOf(await call(cli.url, 'tasks/get', { taskId: 'A'.repeat(24) }, ext)).code, -32602);
  });

  it('Mcp-Name must equal the task id (-32020, HTTP 400); tasks/list and tasks/result do not exist here (-32601)', async () => {
    const created = resultOf(await call(cli.url, 'tools/call', { name: 'research', arguments: {} }, ext));
    const mismatch = await call(cli.url, 'tasks/get', { taskId: created.taskId }, ext, { 'mcp-name': 'someone-elses' });
    assert.equal(mismatch.status, 400);
    assert.equal(errorOf(mismatch).code, -32020);
    assert.equal(errorOf(await call(cli.url, 'tasks/list', {}, ext)).code, -32601);
    assert.equal(errorOf(await call(cli.url, 'tasks/result', { taskId: created.taskId }, ext)).code, -32601);
  });

  it("subscriptions/listen with taskIds: the caller's own tasks agreed, each one's DetailedTask now and at each change to its end", async () => {
    const created = resultOf(await call(cli.url, 'tools/call', { name: 'research', arguments: { label: 'l' } }, ext));
    const taskId = created.taskId as string;
    const ended = (messages: Record<string, unknown>[]) =>
      messages.some((m) => m.method === 'notifications/tasks' && (m.params as { status: string }).status === 'completed');
    const messages = await listen(cli.url, 41, { toolsListChanged: true, taskIds: [taskId, 'N'.repeat(24)] }, true, ended);
    const [ack, ...rest] = messages;
    assert.equal(ack!.method, 'notifications/subscriptions/acknowledged');
    // The unknown id is not agreed; the tools' list changes still are.
    assert.deepEqual((ack!.params as { notifications: unknown }).notifications, { toolsListChanged: true, taskIds: [taskId] });
    const statuses = rest.filter((m) => m.method === 'notifications/tasks').map((m) => m.params as Record<string, unknown>);
    assert.equal(statuses[0]!.status, 'working', 'the task as it is when the subscription starts');
    const last = statuses.at(-1)!;
    assert.equal(last.status, 'completed');
    assert.equal(last.taskId, taskId);
    assert.equal((last.result as { content: { text: string }[] }).content[0]?.text, 'found l', 'the result inlined, as tasks/get has it');
    for (const m of [ack!, ...rest]) assert.equal((m.params as { _meta: Record<string, unknown> })._meta['io.modelcontextprotocol/subscriptionId'], 41);
    // A task already ended: its last state at once, then the listen's response (nothing is left to follow).
    const again = await listen(cli.url, 42, { taskIds: [taskId] }, true, (m) => m.some((x) => x.id === 42));
    assert.deepEqual(
      again.map((m) => [m.method ?? `response ${String(m.id)}`, (m.params as { status?: string } | undefined)?.status]),
      [
        ['notifications/subscriptions/acknowledged', undefined],
        ['notifications/tasks', 'completed'],
        ['response 42', undefined],
      ],
    );
  });

  it('subscriptions/listen for a running task alone stays open until the task ends, then answers', async () => {
    const created = resultOf(await call(cli.url, 'tools/call', { name: 'slow_work', arguments: { label: 'w' } }, ext));
    assert.equal(created.resultType, 'task', 'slow_work outlives taskAfterMs');
    const messages = await listen(cli.url, 44, { taskIds: [created.taskId] }, true, (m) => m.some((x) => x.id === 44));
    const kinds = messages.map((m) => m.method ?? 'response');
    assert.equal(kinds[0], 'notifications/subscriptions/acknowledged');
    assert.equal(kinds.at(-1), 'response', 'the response comes last');
    const statuses = messages.filter((m) => m.method === 'notifications/tasks').map((m) => (m.params as { status: string }).status);
    assert.equal(statuses[0], 'working');
    assert.equal(statuses.at(-1), 'completed');
  });

  it("subscriptions/listen naming 5,000 ids: only the first 64 are looked at (the caller's task at 100th place is not agreed)", async () => {
    const created = resultOf(await call(cli.url, 'tools/call', { name: 'research', arguments: { label: 'cap' } }, ext));
    const ids = Array.from({ length: 5_000 }, (_, i) => (i === 99 ? (created.taskId as string) : `${String(i).padStart(6, '0')}${'q'.repeat(18)}`));
    const [ack] = await listen(cli.url, 45, { toolsListChanged: true, taskIds: ids }, true, (m) => m.length >= 1);
    assert.deepEqual((ack!.params as { notifications: unknown }).notifications, { toolsListChanged: true, taskIds: [] });
  });

  it('subscriptions/listen with taskIds without the extension declared: -32021 naming it', async () => {
    const [answer] = await listen(cli.url, 43, { taskIds: ['T'.repeat(24)] }, false, () => true);
    assert.equal(answer!.id, 43);
    const error = answer!.error as { code: number; data: unknown };
    assert.equal(error.code, -32021);
    assert.deepEqual(error.data, { requiredCapabilities: { extensions: { [EXT]: {} } } });
    assertValidServerMessage(MODERN_REVISION, answer, 'subscriptions/listen');
  });

  it('an OXP authorization met mid-task: input_required with a URL elicitation; tasks/update resumes the same call_id', async () => {
    const who: Caller = { ext: true, urlElicitation: true };
    authCalls.length = 0;
    const createdRes = await call(cli.url, 'tools/call', { name: 'mail_read', arguments: {} }, who);
    const created = resultOf(createdRes);
    assert.ok(created, JSON.stringify(createdRes.messages));
    assert.equal(created.resultType, 'task');
    const taskId = created.taskId as string;
    const waiting = await settle(cli.url, taskId, who, ['input_required', 'completed', 'failed']);
    assert.equal(waiting.status, 'input_required', JSON.stringify(waiting));
    const requests = waiting.inputRequests as Record<string, { method: string; params: { mode: string; url: string } }>;
    const [key, request] = Object.entries(requests)[0]!;
    assert.equal(request.method, 'elicitation/create');
    assert.equal(request.params.mode, 'url');
    assert.equal(request.params.url, AUTH_URL);
    const update = await call(cli.url, 'tasks/update', { taskId, inputResponses: { [key]: { action: 'accept' } } }, who);
    assert.equal(resultOf(update)?.resultType, 'complete', JSON.stringify(update.messages));
    const done = await settle(cli.url, taskId, who);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal((done.result as { content: { text: string }[] }).content[0]?.text, 'mail read');
    assert.equal(authCalls.length, 2);
    assert.equal(authCalls[0], authCalls[1], 'the resumed call sends the same call_id');
    assert.ok(checkPolls >= 1);
  });

  it('the face answers plain-shaped calls itself and others through the SDK: a task looks the same either way', async () => {
    const hot = resultOf(await call(cli.url, 'tools/call', { name: 'research', arguments: {} }, ext));
    // A progress token sends the request through the SDK's endpoint (hot-path.ts takes none).
    const viaSdk = await exchange(cli.url, {
      headers: modernHeaders('tools/call', 'research'),
      body: {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: {
          name: 'research',
          arguments: {},
          _meta: { ...MODERN_META, progressToken: 'p', 'io.modelcontextprotocol/clientCapabilities': { extensions: { [EXT]: {} } } },
        },
      },
    });
    const sdk = viaSdk.messages.find((m) => 'result' in m)?.result as Record<string, unknown>;
    assertValidServerMessage(MODERN_REVISION, { jsonrpc: '2.0', id: 2, result: sdk }, 'tools/call');
    assert.deepEqual(Object.keys(sdk).sort(), Object.keys(hot).sort());
    assert.equal(sdk.resultType, 'task');
  });
});

describe('2026-07-28 tasks over stdio (raw JSON-RPC lines to the CLI)', () => {
  let fixture: OxpFixtureServer;
  let child: ChildProcessWithoutNullStreams;
  const waiting = new Map<number, (message: Record<string, unknown>) => void>();
  const notifications: Record<string, unknown>[] = [];
  let id = 0;

  const send = (method: string, params: Record<string, unknown>, ext = true): Promise<Record<string, unknown>> => {
    const capabilities = ext ? { extensions: { [EXT]: {} } } : {};
    const message = {
      jsonrpc: '2.0',
      id: ++id,
      method,
      params: { ...params, _meta: { ...MODERN_META, 'io.modelcontextprotocol/clientCapabilities': capabilities } },
    };
    const answered = new Promise<Record<string, unknown>>((resolve) => waiting.set(message.id, resolve));
    child.stdin.write(`${JSON.stringify(message)}\n`);
    return answered.then((answer) => {
      assertValidServerMessage(MODERN_REVISION, answer, method);
      return answer;
    });
  };

  before(async () => {
    fixture = await startOxpFixture({ tools: taskFixtureTools() });
    child = spawn(process.execPath, cliArgs(['--transport', 'stdio', '--config', taskConfigFile(fixture.url), '--log-level', 'warn']), {
      cwd: REPO_ROOT,
      env: cleanChildEnv(),
    });
    createInterface({ input: child.stdout }).on('line', (line) => {
      const message = JSON.parse(line) as Record<string, unknown>;
      if (typeof message.id === 'number') waiting.get(message.id)?.(message);
      else notifications.push(message);
    });
  });
  after(async () => {
    child?.kill();
    await fixture?.close();
  });

  it("a required tool's call is a task; tasks/get polls it to completed; without the extension, -32021", async () => {
    const created = (await send('tools/call', { name: 'research', arguments: { label: 'io' } })).result as Record<string, unknown>;
    assert.equal(created.resultType, 'task', JSON.stringify(created));
    const end = Date.now() + 15_000;
    let task: Record<string, unknown> = created;
    while (task.status === 'working' && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 100));
      task = (await send('tasks/get', { taskId: created.taskId })).result as Record<string, unknown>;
    }
    assert.equal(task.status, 'completed');
    assert.equal((task.result as { content: { text: string }[] }).content[0]?.text, 'found io');
    const refused = (await send('tools/call', { name: 'research', arguments: {} }, false)).error as { code: number };
    assert.equal(refused.code, -32021);
  });

  it('subscriptions/listen with taskIds: the agreed task followed to its end (the listen open until cancelled); without the extension, -32021', async () => {
    const created = (await send('tools/call', { name: 'research', arguments: { label: 'sub' } })).result as Record<string, unknown>;
    const taskId = created.taskId as string;
    // Over stdio a listen is answered only when it ends (the client cancels it): its notifications are what it gets.
    const listenId = ++id;
    const params = {
      notifications: { taskIds: [taskId, 'Z'.repeat(24)] },
      _meta: { ...MODERN_META, 'io.modelcontextprotocol/clientCapabilities': { extensions: { [EXT]: {} } } },
    };
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: listenId, method: 'subscriptions/listen', params })}\n`);
    const mine = () =>
      notifications.filter(
        (m) => (m.params as { _meta?: Record<string, unknown> } | undefined)?._meta?.['io.modelcontextprotocol/subscriptionId'] === listenId,
      );
    const statuses = () =>
      mine()
        .filter((m) => m.method === 'notifications/tasks')
        .map((m) => (m.params as { status: string }).status);
    await until(() => statuses().includes('completed'), 15_000, 'the task ends');
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: listenId } })}\n`);
    for (const m of mine()) assertValidServerMessage(MODERN_REVISION, m, 'subscriptions/listen');
    assert.deepEqual((mine()[0]!.params as { notifications: unknown }).notifications, { taskIds: [taskId] });
    assert.equal(statuses()[0], 'working');
    assert.equal(statuses().at(-1), 'completed');
    const refused = (await send('subscriptions/listen', { notifications: { taskIds: [taskId] } }, false)).error as { code: number; data: unknown };
    assert.equal(refused.code, -32021);
    assert.deepEqual(refused.data, { requiredCapabilities: { extensions: { [EXT]: {} } } });
  });
});
