/**
 * Raw-socket HTTP clients for hostile face cases: what fetch cannot do —
 * withhold a body, trickle headers, open connections that never speak.
 */
import { connect, type Socket } from 'node:net';

export interface RawConnection {
  socket: Socket;
  /** Everything the server sent so far. */
  readonly received: string;
  /** Resolves when the server (or anyone) closed the connection, with the time it happened. */
  closed: Promise<number>;
  /** Writes more bytes (ignored once closed). */
  write(text: string): void;
  destroy(): void;
}

/** Opens a TCP connection to `url`'s host and port and writes `initial` (possibly nothing). */
export function rawConnect(url: string, initial = ''): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname.replace(/^\[|\]$/g, ''));
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  socket.on('error', () => undefined);
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now())));
  return new Promise((resolve, reject) => {
    socket.once('connect', () => {
      if (initial) socket.write(initial);
      resolve({
        socket,
        get received() {
          return received;
        },
        closed,
        write: (text) => {
          if (!socket.destroyed) socket.write(text);
        },
        destroy: () => socket.destroy(),
      });
    });
    socket.once('error', reject);
  });
}

/** A POST whose headers announce `contentLength` bytes, followed by only `sent` of them: the body is withheld. */
export function withheldBody(url: string, contentLength = 1000, sent = '{"jsonrpc":"2.0",'): Promise<RawConnection> {
  const { host, pathname } = new URL(url);
  const head =
    `POST ${pathname} HTTP/1.1\r\nHost: ${host}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n` +
    `content-length: ${contentLength}\r\n\r\n`;
  return rawConnect(url, head + sent);
}

/** Whether `promise` settles within `ms`. */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const result = await Promise.race([promise.then(() => true as const), timeout]);
  clearTimeout(timer);
  return result;
}
