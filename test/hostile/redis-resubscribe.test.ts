/**
 * A Redis that drops the task store's subscriber connection while it resubscribes: a stand-in server speaking just
 * enough RESP, which leaves the resubscription unanswered and closes that connection again. The SUBSCRIBE then fails
 * ("Connection is closed.", or the retry limit). No such failure may go unhandled: the process treats an unhandled
 * rejection as fatal (src/commands/main.ts), so a flapping Redis, or a shutdown at the wrong moment, would end it.
 * Once the server answers again the store is subscribed again, and a change it publishes wakes a watcher.
 */
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { RedisTaskStore } from '../../src/calls/tasks/redis-store.js';
import { bulk, commands, READY_INFO } from '../helpers/resp.js';
import { waitFor } from '../helpers/task-store-contract.js';

const PREFIX = 'drops:';
const CHANNEL = `${PREFIX}tasks:changed`;

/** The stand-in: answers the ready check; answers SUBSCRIBE only when `answering`; `drop` closes the subscriber's connection. */
function droppingRedis() {
  const subscribers = new Set<Socket>();
  const state = { subscribes: 0, answering: true };
  const server: Server = createServer((socket) => {
    const buffer = { data: '' };
    socket.on('error', () => {});
    socket.on('close', () => subscribers.delete(socket));
    socket.on('data', (chunk) => {
      buffer.data += chunk.toString('latin1');
      for (const [name = '', ...args] of commands(buffer)) {
        const command = name.toUpperCase();
        if (command === 'INFO') socket.write(bulk(READY_INFO));
        else if (command === 'PING') socket.write('+PONG\r\n');
        else if (command === 'QUIT') socket.end('+OK\r\n');
        else if (command === 'HGETALL') socket.write('*0\r\n');
        else if (command !== 'SUBSCRIBE') socket.write('+OK\r\n');
        else {
          state.subscribes++;
          subscribers.add(socket);
          if (state.answering) socket.write(`*3\r\n${bulk('subscribe')}${bulk(args[0] ?? '')}:1\r\n`);
        }
      }
    });
  });
  const publish = (taskId: string) => {
    for (const socket of subscribers) socket.write(`*3\r\n${bulk('message')}${bulk(CHANNEL)}${bulk(taskId)}\r\n`);
  };
  const drop = () => {
    for (const socket of subscribers) socket.destroy();
  };
  return new Promise<{ server: Server; url: string; state: typeof state; drop: () => void; publish: typeof publish }>((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({ server, url: `redis://127.0.0.1:${port}`, state, drop, publish });
    }),
  );
}

describe('hostile: a Redis that drops the task store subscriber as it resubscribes', () => {
  it('no failure goes unhandled, dropped again or closed mid-resubscription; answered again, it is subscribed again', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const redis = await droppingRedis();
    const settings = { url: redis.url, keyPrefix: PREFIX, onUnavailable: 'share' as const, commandTimeoutMs: 500, connectTimeoutMs: 2_000, leaseSeconds: 300 };
    const store = new RedisTaskStore(settings, { maxPerOwner: 10, maxTotal: 100 });
    try {
      await waitFor(() => redis.state.subscribes === 1, 5_000);
      // Dropped; the resubscription goes unanswered and is dropped again.
      redis.state.answering = false;
      redis.drop();
      await waitFor(() => redis.state.subscribes === 2, 5_000);
      redis.drop();
      await waitFor(() => redis.state.subscribes >= 3, 5_000);
      // Answered again: the store is subscribed, and a change wakes the task's watcher (which then reads the task).
      redis.state.answering = true;
      redis.drop();
      const subscribed = redis.state.subscribes;
      await waitFor(() => redis.state.subscribes > subscribed, 5_000);
      const woken: unknown[] = [];
      store.watch('t1', (record) => woken.push(record));
      await new Promise((resolve) => setTimeout(resolve, 100));
      redis.publish('t1');
      await waitFor(() => woken.length > 0, 5_000);
      // Closed while a resubscription is unanswered.
      redis.state.answering = false;
      redis.drop();
      const pending = redis.state.subscribes;
      await waitFor(() => redis.state.subscribes > pending, 5_000);
      await store.close();
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(unhandled.map(String), []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await store.close();
      redis.server.close();
    }
  });
});
