/**
 * The OXP fixture with `long_call` (bench/lib/tasks-common.ts) in a process of its own, for bench/tasks-replicas.ts: so that the load generator's process does not also accept the replicas' OXP
 * connections. Prints `{"url", "pid", "control"}`; GET <control>/labels answers the labels of the calls it received
 * and the number abandoned.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startOxpFixture } from '../../test/fixtures/oxp-fixture-server.js';
import { longCallTools } from '../lib/tasks-common.js';

const fixture = await startOxpFixture({ tools: longCallTools() });
const control = createServer((_req, res) => {
  const labels = fixture.requests
    .map((r) => (r.body as { request?: { input?: { label?: unknown } } } | undefined)?.request?.input?.label)
    .filter((l) => typeof l === 'string');
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ labels, abandoned: fixture.abandonedCalls.length }));
});
control.listen(0, '127.0.0.1', () => {
  const { port } = control.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ url: fixture.url, pid: process.pid, control: `http://127.0.0.1:${port}` })}\n`);
});
process.on('SIGTERM', () => void fixture.close().then(() => process.exit(0)));
