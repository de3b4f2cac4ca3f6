/**
 * The default connection bound (src/platform/net/server-limits.ts): half the open-files
 * limit, between 256 and 16,384; 1,024 when the limit cannot be read. And the close after a drain.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLimitedServer, DEFAULT_SERVER_LIMITS, defaultMaxConnections } from './server-limits.js';

const limits = (soft: string, hard = soft) =>
  `Limit                     Soft Limit           Hard Limit           Units     \nMax open files            ${soft.padEnd(20)} ${hard.padEnd(20)} files     \n`;

test('half the open-files limit, within 256 and 16,384', () => {
  assert.equal(defaultMaxConnections(limits('20000')), 10_000);
  assert.equal(defaultMaxConnections(limits('4096')), 2_048);
  assert.equal(defaultMaxConnections(limits('1024')), 512);
  assert.equal(defaultMaxConnections(limits('256')), 256);
  assert.equal(defaultMaxConnections(limits('1048576')), 16_384);
  assert.equal(defaultMaxConnections(limits('unlimited')), 16_384);
});

test('1,024 where the limit cannot be read', () => {
  assert.equal(defaultMaxConnections(''), 1_024);
  assert.equal(defaultMaxConnections('Max processes 100 100 processes\n'), 1_024);
});

test('this process: a number in range', () => {
  const n = defaultMaxConnections();
  assert.ok(Number.isInteger(n) && n >= 256 && n <= 16_384, String(n));
});

test('destroy(settleMs): the listener stops at once; a request being read or answered then still gets its answer; destroy() cuts it off', async () => {
  const answerAfter = async (settleMs: number) => {
    const limited = createLimitedServer(DEFAULT_SERVER_LIMITS, (_req, res) => void setTimeout(() => res.end('late'), 60));
    limited.server.listen(0, '127.0.0.1');
    await once(limited.server, 'listening');
    const { port } = limited.server.address() as AddressInfo;
    const answer = new Promise<string>((resolve) => {
      const req = request({ port, host: '127.0.0.1', method: 'POST', path: '/' }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve(body));
        res.on('error', () => resolve('cut off'));
      });
      req.on('error', () => resolve('cut off'));
      req.end('x');
    });
    while (limited.active === 0) await new Promise((r) => setTimeout(r, 5));
    const closed = limited.destroy(settleMs);
    const refused = await new Promise<boolean>((resolve) => {
      const probe = request({ port, host: '127.0.0.1', path: '/' }, () => resolve(false));
      probe.on('error', () => resolve(true));
      probe.end();
    });
    const [body] = await Promise.all([answer, closed]);
    return { body, refused };
  };
  assert.deepEqual(await answerAfter(1_000), { body: 'late', refused: true });
  assert.deepEqual(await answerAfter(0), { body: 'cut off', refused: true });
});

test('destroy(settleMs): a request received on a kept-alive connection but not yet read (a busy event loop) is answered too', async () => {
  const { connect } = await import('node:net');
  const limited = createLimitedServer(DEFAULT_SERVER_LIMITS, (_req, res) => res.end('answered'));
  limited.server.listen(0, '127.0.0.1');
  await once(limited.server, 'listening');
  const { port } = limited.server.address() as AddressInfo;
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  socket.on('error', () => undefined);
  const ask = 'GET / HTTP/1.1\r\nHost: x\r\n\r\n';
  socket.write(ask);
  while (!received.includes('answered')) await new Promise((r) => setTimeout(r, 5));
  // The connection is idle now. The next request reaches the kernel while the event loop is busy; then the close.
  socket.write(ask);
  const busyUntil = Date.now() + 50;
  while (Date.now() < busyUntil);
  await limited.destroy(1_000);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(received.split('answered').length - 1, 2, `the second request was answered: ${JSON.stringify(received)}`);
  socket.destroy();
});
