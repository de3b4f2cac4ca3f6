/** What every bench server child does once listening: print one JSON line with its URL on stdout. */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';

export async function announce(server: Server, path = ''): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(Number(process.env.BENCH_PORT ?? 0), '127.0.0.1', () => resolve());
  });
  server.keepAliveTimeout = 65_000;
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}${path}`, pid: process.pid })}\n`);
  const stop = () => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

/** Reads a request body as a string. */
export function readBody(req: import('node:http').IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
