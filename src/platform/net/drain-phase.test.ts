/** src/platform/net/drain-phase.ts: serving, then draining (not ready, still serving) for the delay, then refusing. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DrainPhase, keepingConnectionClose } from './drain-phase.js';

test('draining at once, refusing once the delay has passed; a second begin changes nothing', async () => {
  const phase = new DrainPhase();
  assert.deepEqual([phase.draining, phase.refusing], [false, false]);
  const over = phase.begin(200);
  assert.deepEqual([phase.draining, phase.refusing], [true, false]);
  await over;
  assert.deepEqual([phase.draining, phase.refusing], [true, true]);
  await phase.begin(10_000);
  assert.equal(phase.refusing, true);
});

test('no delay: refusing at once; refuseNow cuts a delay short and ends its wait', async () => {
  const none = new DrainPhase();
  await none.begin(0);
  assert.equal(none.refusing, true);
  const cut = new DrainPhase();
  const over = cut.begin(60_000);
  cut.refuseNow();
  await over;
  assert.equal(cut.refusing, true);
});

test('once the stop has begun, a response closes its connection, whatever its own headers say; before, it is kept alive', async () => {
  const phase = new DrainPhase();
  const server: Server = createServer((_req, res) => {
    phase.closeConnectionsOf(res);
    // The SDK's 2025-era stream says keep-alive (core/mcp-encode.ts SSE_HEADERS).
    res.writeHead(200, keepingConnectionClose(res, { 'content-type': 'text/event-stream', Connection: 'keep-alive' }));
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const connectionHeader = () =>
    new Promise<string | undefined>((resolve, reject) => {
      const req = request({ port, host: '127.0.0.1', headers: { connection: 'keep-alive' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.headers.connection));
      });
      req.on('error', reject);
      req.end();
    });
  try {
    assert.equal(await connectionHeader(), 'keep-alive');
    const over = phase.begin(60_000);
    assert.equal(await connectionHeader(), 'close', 'draining');
    phase.refuseNow();
    await over;
    assert.equal(await connectionHeader(), 'close', 'refusing');
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
