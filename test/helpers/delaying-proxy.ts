/**
 * A TCP stand-in between a client and a real server (Redis, here) that delays the bytes of each direction by a
 * settable time, keeping their order: a server slower than the client's timeout, without freezing the server itself
 * (test/integration/task-store-refusals.test.ts).
 */
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';

export interface Delays {
  /** Client → server bytes wait this long (ms). */
  toServer: number;
  /** Server → client bytes wait this long (ms). */
  toClient: number;
}

export interface DelayingProxy {
  readonly port: number;
  delays: Delays;
  close(): Promise<void>;
}

/** Forwards each chunk after `delay()` ms, never before an earlier chunk of the same direction. */
function delayedPipe(from: Socket, to: Socket, delay: () => number): void {
  let releaseAt = 0;
  from.on('data', (chunk) => {
    releaseAt = Math.max(releaseAt, Date.now() + delay());
    setTimeout(() => to.writable && to.write(chunk), releaseAt - Date.now());
  });
  from.on('close', () => setTimeout(() => to.destroy(), Math.max(0, releaseAt - Date.now())));
  from.on('error', () => undefined);
}

export async function startDelayingProxy(targetPort: number, host = '127.0.0.1'): Promise<DelayingProxy> {
  const sockets = new Set<Socket>();
  const proxy: { delays: Delays } = { delays: { toServer: 0, toClient: 0 } };
  const server = createServer((client) => {
    const upstream = connect(targetPort, host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    }
    delayedPipe(client, upstream, () => proxy.delays.toServer);
    delayedPipe(upstream, client, () => proxy.delays.toClient);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get delays() {
      return proxy.delays;
    },
    set delays(value: Delays) {
      proxy.delays = value;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
