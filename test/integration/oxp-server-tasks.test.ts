/**
 * The oxp-server calling MCP tools that require tasks (2025-11-25
 * `execution.taskSupport: "required"`), against a real task server over
 * stdio (test/fixtures/mcp-task-server.ts: the v1 SDK's task runtime) and
 * real OXP clients over HTTP: a task-augmented tools/call, tasks/get at the
 * server's pollInterval (or a status notification), tasks/result; tasks/cancel
 * when the deadline passes or the OXP client goes away; optional tools stay
 * plain calls; a server without the tasks capability keeps its task tools
 * unpublished.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../src/platform/log.js';
import { AUTHORIZE_URL, mcpTaskServerCommand, startMcpTaskHttpServer, type TaskFixtureEvent } from '../fixtures/mcp-task-server.js';
import { eventually, startTestOxpServer, writeConfigFile, type TestOxpServer } from '../helpers/oxp-server-harness.js';

const CALL_TIMEOUT_MS = 800;
const TASK_CALL_TIMEOUT_MS = 4_000;
/** The OXP server's own request deadline (body received), which a long answer outlives. */
const REQUEST_TIMEOUT_MS = 1_000;
/** research's own pace: 4 steps of 400 ms (longer than CALL_TIMEOUT_MS and REQUEST_TIMEOUT_MS), tasks/get every 500 ms. */
const RESEARCH = { topic: 'tides', steps: 4, stepMs: 400, pollMs: 500 };

describe('oxp-server: MCP tools that require tasks', () => {
  let server: TestOxpServer;
  let events: string;
  let noTaskEvents: string;
  let httpEvents: string;
  let http: { url: string; close: () => Promise<void> };
  const logLines: string[] = [];
  const read = (file = events): TaskFixtureEvent[] =>
    existsSync(file)
      ? readFileSync(file, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as TaskFixtureEvent)
      : [];
  const created = (name: string, file = events) => read(file).filter((e) => e.method === 'created' && e.name === name);
  const id = (name: string) => `Tasks.${name}`;

  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oxp-tasks-'));
    events = join(dir, 'events.jsonl');
    noTaskEvents = join(dir, 'no-task-events.jsonl');
    httpEvents = join(dir, 'http-events.jsonl');
    http = await startMcpTaskHttpServer(httpEvents);
    const upstreams = [
      { toolkit: 'Tasks', ...mcpTaskServerCommand(events) },
      { toolkit: 'NoTasks', ...mcpTaskServerCommand(noTaskEvents, { noTasks: true }) },
      { toolkit: 'Remote', url: http.url },
    ];
    const timeouts = { callTimeoutMs: CALL_TIMEOUT_MS, taskCallTimeoutMs: TASK_CALL_TIMEOUT_MS, headersTimeoutMs: 1_000, requestTimeoutMs: REQUEST_TIMEOUT_MS };
    const config = { oxpServer: { upstreams, connectTimeoutMs: 60_000, ...timeouts } };
    const log = createLogger('debug', new Writable({ write: (chunk, _e, done) => (logLines.push(String(chunk)), done()) }));
    server = await startTestOxpServer(['--config', writeConfigFile(config), '--log-level', 'debug'], {}, log);
  });
  after(async () => {
    await server?.close();
    await http?.close();
  });

  it('publishes the task tools of a server that declares tasks, and not those of one that does not', async () => {
    const ids = (await server.client.list()).map((t) => String(t.id).split('@')[0]);
    for (const name of ['research', 'slow', 'fails', 'authorize', 'notify', 'vanish', 'garbage', 'quick', 'plain']) assert.ok(ids.includes(id(name)), name);
    assert.ok(ids.includes('NoTasks.quick') && ids.includes('NoTasks.plain'));
    assert.ok(!ids.some((i) => i === 'NoTasks.research' || i === 'NoTasks.slow'), ids.join(' '));
    assert.ok(logLines.some((l) => l.includes('"tool":"research"') && l.includes('MCP tool not published') && l.includes('capabilities.tasks')));
  });

  it('runs a task call to its result: tools/call with a task, tasks/get at the pollInterval, tasks/result; the task deadline, not the plain one, nor the request deadline', async () => {
    const started = Date.now();
    const result = await server.client.result(`${id('research')}@1.2.3`, RESEARCH);
    const took = Date.now() - started;
    assert.deepEqual([result.success, result.value], [true, 'Report on tides']);
    assert.ok(took > Math.max(CALL_TIMEOUT_MS, REQUEST_TIMEOUT_MS), `the call outlived callTimeoutMs and requestTimeoutMs (${took} ms)`);
    const [task] = created('research');
    assert.ok(task?.taskId);
    const call = read().find((e) => e.method === 'tools/call' && e.name === 'research')!;
    // The task is kept for the call's deadline and a minute to read its result.
    assert.deepEqual(call.task, { ttl: TASK_CALL_TIMEOUT_MS + 60_000 });
    const gets = read().filter((e) => e.method === 'tasks/get' && e.taskId === task.taskId);
    assert.ok(gets.length >= 2 && gets.length <= 5, `${gets.length} tasks/get in ${took} ms`);
    const gaps = gets.map((g, i) => g.at - (i === 0 ? call.at : gets[i - 1]!.at));
    for (const gap of gaps) assert.ok(gap >= RESEARCH.pollMs - 50, `tasks/get ${gap} ms after the previous request (pollInterval ${RESEARCH.pollMs})`);
    assert.equal(read().filter((e) => e.method === 'tasks/result' && e.taskId === task.taskId).length, 1);
  });

  it('names the MCP task id in the per-call log line', () => {
    const [task] = created('research');
    const line = logLines.find((l) => l.includes('"msg":"OXP call"') && l.includes('Tasks.research'));
    assert.ok(line, 'an OXP call line');
    assert.equal((JSON.parse(line) as { mcp_task_id?: string }).mcp_task_id, task!.taskId);
  });

  it('calls optional and plain tools without a task', async () => {
    for (const name of ['quick', 'plain']) assert.equal((await server.client.result(id(name), {})).value, `${name} answered plainly`);
    const calls = read().filter((e) => e.method === 'tools/call' && (e.name === 'quick' || e.name === 'plain'));
    assert.equal(calls.length, 2);
    assert.ok(calls.every((e) => e.task === undefined));
  });

  it('a task that fails is the tool error it carries', async () => {
    const result = await server.client.result(id('fails'), {});
    assert.equal(result.success, false);
    assert.equal((result.error as { message: string }).message, 'the job failed');
  });

  it("a task's URL-mode elicitation (through tasks/result) becomes the call's authorization challenge, as for a plain call", async () => {
    const reply = await server.client.call(id('authorize'), {});
    assert.equal(reply.status, 400, JSON.stringify(reply.body));
    assert.deepEqual((reply.body.missing_requirements as { authorization: unknown }).authorization, [{ id: 'github-login', url: AUTHORIZE_URL }]);
  });

  it("a status notification ends the wait before the server's pollInterval (20 s)", async () => {
    const started = Date.now();
    const result = await server.client.result(id('notify'), {});
    assert.deepEqual([result.success, result.value], [true, 'notified']);
    assert.ok(Date.now() - started < 3_000, `${Date.now() - started} ms`);
    const [task] = created('notify');
    assert.equal(read().filter((e) => e.method === 'tasks/get' && e.taskId === task!.taskId).length, 0);
  });

  it('a task its server cancels is a tool error that says so', async () => {
    const result = await server.client.result(id('vanish'), {});
    assert.equal(result.success, false);
    const error = result.error as { message: string; can_retry?: boolean; developer_message?: string };
    assert.equal(error.message, 'The tool server cancelled the call before it finished.');
    assert.equal(error.can_retry, true);
    assert.match(String(error.developer_message), /the server is shutting down/);
  });

  it('a task id no client should take (10,000 characters) is a tool error, and is never sent back', async () => {
    const result = await server.client.result(id('garbage'), {});
    assert.equal(result.success, false);
    const error = result.error as { message: string; developer_message?: string };
    assert.equal(error.message, 'The tool server answered the call in a way the bridge could not understand.');
    assert.match(String(error.developer_message), /taskId is not a printable string of 1 to 256 characters/);
    assert.ok(!read().some((e) => e.method.startsWith('tasks/') && e.taskId?.startsWith('xxx')));
  });

  it('the task deadline (taskCallTimeoutMs) ends the call with a retryable tool error, and cancels the task', async () => {
    const started = Date.now();
    const result = await server.client.result(id('slow'), {});
    const took = Date.now() - started;
    assert.deepEqual([result.success, result.error], [false, { message: 'The tool did not finish in time.', can_retry: true }]);
    assert.ok(took >= TASK_CALL_TIMEOUT_MS - 100 && took < TASK_CALL_TIMEOUT_MS + 5_000, `${took} ms`);
    const [task] = created('slow');
    await eventually(() => read().some((e) => e.method === 'tasks/cancel' && e.taskId === task!.taskId), 5_000, 'tasks/cancel');
  });

  it('cancels the task when the OXP client goes away', async () => {
    const before = created('slow').length;
    const aborter = new AbortController();
    const pending = fetch(`${server.url}/tools/call`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ $schema: 'urn:oxp:1.0', request: { tool_id: id('slow'), input: { ms: 60_000 } } }),
      signal: aborter.signal,
    }).catch((error: unknown) => error);
    await eventually(() => created('slow').length > before, 10_000, 'the task created');
    const task = created('slow')[before]!;
    aborter.abort();
    assert.ok((await pending) instanceof Error);
    await eventually(() => read().some((e) => e.method === 'tasks/cancel' && e.taskId === task.taskId), 5_000, 'tasks/cancel');
  });
  it('over Streamable HTTP (a 2025 session): the result, a status notification on the GET stream, the authorization challenge', async () => {
    const research = await server.client.result('Remote.research', { ...RESEARCH, topic: 'currents' });
    assert.deepEqual([research.success, research.value], [true, 'Report on currents']);
    const started = Date.now();
    assert.equal((await server.client.result('Remote.notify', {})).value, 'notified');
    assert.ok(Date.now() - started < 3_000, `${Date.now() - started} ms`);
    const reply = await server.client.call('Remote.authorize', {});
    assert.equal(reply.status, 400, JSON.stringify(reply.body));
    assert.deepEqual((reply.body.missing_requirements as { authorization: unknown }).authorization, [{ id: 'github-login', url: AUTHORIZE_URL }]);
    assert.ok(read(httpEvents).some((e) => e.method === 'tasks/result'));
  });

  it('over Streamable HTTP: cancels the task when the OXP client goes away', async () => {
    const aborter = new AbortController();
    const pending = fetch(`${server.url}/tools/call`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ $schema: 'urn:oxp:1.0', request: { tool_id: 'Remote.slow', input: { ms: 60_000 } } }),
      signal: aborter.signal,
    }).catch((error: unknown) => error);
    await eventually(() => created('slow', httpEvents).length > 0, 10_000, 'the task created');
    const task = created('slow', httpEvents)[0]!;
    aborter.abort();
    assert.ok((await pending) instanceof Error);
    await eventually(() => read(httpEvents).some((e) => e.method === 'tasks/cancel' && e.taskId === task.taskId), 5_000, 'tasks/cancel');
  });
});
