import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TaskRecord } from '../bridge/task-calls.js';
import { acknowledgedWith, requestedTaskIds, sseEvent, withTaskNotifications, type FollowTask } from './task-notifications.js';

const record = (status: TaskRecord['status'], revision: number): TaskRecord => ({
  taskId: 'T'.repeat(24),
  owner: 'o',
  status,
  createdAt: 0,
  lastUpdatedAt: revision,
  ttlMs: 60_000,
  pollIntervalMs: 100,
  work: {},
  redrives: 0,
  revision,
});

const ack = sseEvent({
  jsonrpc: '2.0',
  method: 'notifications/subscriptions/acknowledged',
  params: { notifications: {}, _meta: { 'io.modelcontextprotocol/subscriptionId': 9 } },
});
const response = sseEvent({ jsonrpc: '2.0', id: 9, result: {} });

/** A stream of `text` cut into chunks of `size` bytes (an event split anywhere), then `rest` later. */
function sdkStream(parts: string[], size: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(parts.join(''));
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

async function messagesOf(stream: ReadableStream<Uint8Array>): Promise<Record<string, unknown>[]> {
  const text = await new Response(stream).text();
  return text
    .split('\n\n')
    .filter((e) => e.includes('data:'))
    .map(
      (e) =>
        JSON.parse(
          e
            .split('\n')
            .find((l) => l.startsWith('data:'))!
            .slice(5),
        ) as Record<string, unknown>,
    );
}

describe('task status notifications on the listen stream', () => {
  it('reads the task ids a listen names (strings, once each), nothing for other requests', () => {
    assert.deepEqual(requestedTaskIds({ method: 'subscriptions/listen', params: { notifications: { taskIds: ['a', 'a', 3, 'b'] } } }), ['a', 'b']);
    const many = Array.from({ length: 10_000 }, (_, i) => `id-${i % 100}`);
    assert.deepEqual(
      requestedTaskIds({ method: 'subscriptions/listen', params: { notifications: { taskIds: many } } }),
      many.slice(0, 64),
      'the first 64 distinct ones',
    );
    assert.equal(requestedTaskIds({ method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true } } }), undefined);
    assert.equal(requestedTaskIds({ method: 'tools/call', params: { notifications: { taskIds: ['a'] } } }), undefined);
    assert.equal(requestedTaskIds([{ method: 'subscriptions/listen' }]), undefined);
  });

  it('adds the agreed ids to the acknowledgement only', () => {
    assert.equal(acknowledgedWith(response, ['x']), undefined);
    const rewritten = acknowledgedWith(ack, ['x'])!;
    assert.match(rewritten, /"notifications":\{"taskIds":\["x"\]\}/);
  });

  for (const size of [1, 7, 4096])
    it(`chunks of ${size} byte(s): the acknowledgement first, the task's changes after it, the response held until the task ended`, async () => {
      const follow: FollowTask = async (first, _signal, onRecord) => {
        onRecord(first);
        await new Promise((r) => setTimeout(r, 20));
        onRecord(record('completed', 2));
      };
      const keepAlive = ': keep-alive\n\n';
      const stream = withTaskNotifications(sdkStream([keepAlive, ack, response], size), 9, [record('working', 1)], follow);
      const messages = await messagesOf(stream);
      assert.deepEqual(
        messages.map((m) => m.method ?? `response ${String(m.id)}`),
        ['notifications/subscriptions/acknowledged', 'notifications/tasks', 'notifications/tasks', 'response 9'],
      );
      assert.deepEqual((messages[0]!.params as { notifications: unknown }).notifications, { taskIds: ['T'.repeat(24)] });
      assert.deepEqual(
        messages
          .slice(1, 3)
          .map((m) => [
            (m.params as { status: string }).status,
            (m.params as { _meta: Record<string, unknown> })._meta['io.modelcontextprotocol/subscriptionId'],
          ]),
        [
          ['working', 9],
          ['completed', 9],
        ],
      );
    });

  it('stops following when the reader cancels the stream (the client went away)', async () => {
    let stopped = false;
    const follow: FollowTask = (first, signal, onRecord) => {
      onRecord(first);
      return new Promise((resolve) => signal.addEventListener('abort', () => resolve(void (stopped = true))));
    };
    const endless = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(ack));
      },
    });
    const reader = withTaskNotifications(endless, 9, [record('working', 1)], follow).getReader();
    await reader.read();
    await reader.cancel();
    assert.equal(stopped, true);
  });
});
