/** A local OTLP/HTTP endpoint for the tracing benches: reads and discards every export, counting exports and bytes. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function startOtlpSink() {
  let spansBytes = 0;
  let exports = 0;
  const server = createServer((req, res) => {
    req.on('data', (c: Buffer) => (spansBytes += c.length));
    req.on('end', () => {
      exports++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, stats: () => ({ exports, spansBytes }), close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** A bridge's environment for tracing every call to `sinkUrl` (batches flushed at least every second). */
export function tracedEnv(sinkUrl: string): Record<string, string> {
  return { OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl, OTEL_TRACES_SAMPLER: 'always_on', OTEL_BSP_SCHEDULE_DELAY: '1000' };
}
