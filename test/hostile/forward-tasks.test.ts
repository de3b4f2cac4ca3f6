/**
 * Hostile callers against MCP tasks: guessed and foreign task ids, a flood
 * of 10,000 task creations by one principal, a tasks/result held open by a
 * client that never reads its answer, and one that goes away while waiting.
 * Each gets one clear answer, nothing is left behind (no waiter, no record
 * beyond the bounds), and the bridge keeps answering everyone else.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Agent } from 'node:http';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { MemoryTaskStore } from '../../src/calls/tasks/memory-store.js';
import { startBridge, type RunningBridge } from '../../src/commands/forward.js';
import { createLogger } from '../../src/platform/log.js';
import { startOxpFixture, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { testConfig } from '../helpers/bridge-harness.js';
import { exchange, postOver } from '../helpers/it-http.js';
import { taskFixtureTools, until } from '../helpers/task-fixtures.js';
import { assertHealthy, healthzOf } from './health.js';

const ALICE = 'hostile-alice-token-0123456789';
const MALLORY = 'hostile-mallory-token-012345678';
const MAX_PER_PRINCIPAL = 100;
let nextId = 1;

type Answer = { result?: Record<string, unknown>; error?: { code: number; message: string; data?: Record<string, unknown> } };

/** The first JSON-RPC message of an answer. No JSON-RPC answer at all is a failure of its own: said with what came instead. */
function answerOf(res: { status: number; contentType: string | null; messages: Record<string, unknown>[]; text: string }): Answer {
  const message = res.messages[0] as Answer | undefined;
  return message ?? { error: { code: 0, message: `no JSON-RPC answer: HTTP ${res.status} ${res.contentType} ${JSON.stringify(res.text.slice(0, 200))}` } };
}

describe('hostile callers against tasks', () => {
  let fixture: OxpFixtureServer;
  let bridge: RunningBridge;
  let url: string;
  const store = () => bridge.bridge.tasks!.lifecycle.store as MemoryTaskStore;

  const post = async (token: string, method: string, params: Record<string, unknown>) => {
    const res = await exchange(url, {
      headers: { authorization: `Bearer ${token}`, 'mcp-protocol-version': '2025-11-25' },
      body: { jsonrpc: '2.0', id: nextId++, method, params },
    });
    return answerOf({ status: res.status, contentType: res.headers.get('content-type'), messages: res.messages, text: res.text });
  };

  before(async () => {
    // A big result: 7 MB of text, more than the socket buffers hold for a client that never reads.
    const tools = [
      ...taskFixtureTools(),
      {
        id: 'Big.Result',
        name: 'big_result',
        version: '1.0.0',
        input_schema: { type: 'object' },
        handler: () => ({ delayMs: 300, then: { value: 'x'.repeat(7_000_000) } }),
      },
    ];
    fixture = await startOxpFixture({ tools });
    const config = testConfig(['--oxp-url', fixture.url], { MCP_AUTH_TOKENS: `${ALICE},${MALLORY}` });
    config.tasks.maxPerPrincipal = MAX_PER_PRINCIPAL;
    config.tasks.pollIntervalMs = 100;
    // A client that reads nothing for 2 s is cut off (the server bounds' requestTimeoutMs).
    config.http.requestTimeoutMs = 2_000;
    config.http.headersTimeoutMs = 2_000;
    bridge = await startBridge(config, createLogger('silent'));
    url = bridge.mcpUrl!;
  });
  after(async () => {
    await bridge?.close();
    await fixture?.close();
  });

  it('guessed ids of every shape, and foreign ones, answer exactly as an unknown task', async () => {
    const created = await post(ALICE, 'tools/call', { name: 'slow_work', arguments: {}, task: {} });
    const aliceTask = (created.result!.task as { taskId: string }).taskId;
    const guesses: unknown[] = [
      aliceTask,
      randomBytes(18).toString('base64url'),
      '',
      'x'.repeat(100_000),
      42,
      null,
      { $ne: null },
      ['a'],
      '../../etc/passwd',
      '\u0000',
    ];
    const answers = new Set<string>();
    for (const taskId of guesses)
      for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
        const answer = await post(MALLORY, method, { taskId });
        assert.ok(answer.error, `${method} ${JSON.stringify(taskId).slice(0, 40)}: ${JSON.stringify(answer)}`);
        if (typeof taskId === 'string') answers.add(JSON.stringify(answer.error));
        else assert.equal(answer.error.code, -32602);
      }
    // One answer for a foreign id and every string guess, per method: nothing tells them apart.
    assert.equal(answers.size, 1, [...answers].join('\n'));
    assert.equal((await post(ALICE, 'tasks/get', { taskId: aliceTask })).result?.taskId, aliceTask);
    await assertHealthy(healthzOf(url));
  });

  it('10,000 task creations by one principal: at most tasks.maxPerPrincipal are kept, the rest refused with a clear error; others are unaffected', async () => {
    const already = await store().count();
    let next = 0;
    const outcomes = { created: 0, refused: 0, other: [] as string[] };
    // The flood over node:http with a keep-alive agent (postOver), not fetch: the bridge sees the same requests.
    const agent = new Agent({ keepAlive: true, maxSockets: 32 });
    const worker = async () => {
      while (next < 10_000) {
        next += 1;
        const body = { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name: 'echo', arguments: { label: String(next) }, task: {} } };
        const answer = answerOf(await postOver(agent, url, { authorization: `Bearer ${MALLORY}`, 'mcp-protocol-version': '2025-11-25' }, body));
        if (answer.result?.task) outcomes.created += 1;
        else if (answer.error?.data?.kind === 'too_many_tasks') {
          outcomes.refused += 1;
          if (outcomes.refused === 1) {
            assert.equal(answer.error.code, -32000);
            assert.match(answer.error.message, new RegExp(`holds ${MAX_PER_PRINCIPAL}, the most it may \\(tasks\\.maxPerPrincipal\\)`));
            assert.ok(Number(answer.error.data.retry_after_ms) >= 1000);
          }
        } else outcomes.other.push(JSON.stringify(answer).slice(0, 300));
      }
    };
    await Promise.all(Array.from({ length: 32 }, worker)).finally(() => agent.destroy());
    assert.deepEqual(outcomes.other, []);
    assert.equal(outcomes.created + outcomes.refused, 10_000);
    assert.ok(outcomes.created <= MAX_PER_PRINCIPAL, `${outcomes.created} created`);
    assert.ok((await store().count()) <= already + MAX_PER_PRINCIPAL);
    // Alice still creates hers.
    assert.ok((await post(ALICE, 'tools/call', { name: 'echo', arguments: {}, task: {} })).result?.task);
    await assertHealthy(healthzOf(url));
  });

  it('a tasks/result whose client never reads: answered when the task ends, then cut off after requestTimeoutMs; nothing left waiting', async () => {
    const created = await post(ALICE, 'tools/call', { name: 'big_result', arguments: {}, task: {} });
    const taskId = (created.result!.task as { taskId: string }).taskId;
    const socket = await rawRequest(url, ALICE, { jsonrpc: '2.0', id: 'held', method: 'tasks/result', params: { taskId } });
    socket.pause();
    socket.on('error', () => undefined);
    await until(() => store().watched === 0, 10_000, 'the waiter is gone once the task ended');
    // Past requestTimeoutMs the bridge gave up on this reader: reading now finds the answer cut short, then the end.
    await new Promise((r) => setTimeout(r, 3_000));
    let received = 0;
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('data', (chunk: Buffer) => (received += chunk.length));
    socket.resume();
    await Promise.race([closed, new Promise((_, reject) => setTimeout(() => reject(new Error('the connection was not closed')), 10_000))]);
    assert.ok(received < 7_000_000, `${received} bytes: the answer was cut off, not kept for the reader`);
    await assertHealthy(healthzOf(url));
  });

  it('a tasks/result whose client goes away while waiting: its waiter is removed', async () => {
    const created = await post(ALICE, 'tools/call', { name: 'hang', arguments: {}, task: {} });
    const taskId = (created.result!.task as { taskId: string }).taskId;
    const before = store().watched;
    const sockets = await Promise.all(
      Array.from({ length: 20 }, () => rawRequest(url, ALICE, { jsonrpc: '2.0', id: 1, method: 'tasks/result', params: { taskId } })),
    );
    await until(() => store().watched >= before, 5000, 'waiting');
    for (const s of sockets) s.destroy();
    await post(ALICE, 'tasks/cancel', { taskId });
    await until(() => store().watched === 0, 10_000, 'every waiter removed');
    await assertHealthy(healthzOf(url));
  });
});

/** A raw HTTP/1.1 POST on a socket of its own, so the test decides when (whether) the answer is read. */
function rawRequest(url: string, token: string, body: unknown): Promise<Socket> {
  const target = new URL(url);
  const json = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(target.port), target.hostname, () => {
      socket.write(
        [
          `POST ${target.pathname} HTTP/1.1`,
          `host: ${target.host}`,
          'content-type: application/json',
          'accept: application/json, text/event-stream',
          'mcp-protocol-version: 2025-11-25',
          `authorization: Bearer ${token}`,
          `content-length: ${Buffer.byteLength(json)}`,
          '',
          json,
        ].join('\r\n'),
      );
      resolve(socket);
    });
    socket.once('error', reject);
  });
}
