/**
 * `node --import tsx bench/otel-off.ts`: what tracing costs a call when it is
 * off (no `OTEL_*`): the facade's no-op tracer, asked for the two spans a
 * `tools/call` makes (the MCP request and the OXP attempt), as the call sites
 * ask. No `@opentelemetry/*` module is loaded then
 * (test/integration/tracing.test.ts proves it), so this is the whole cost.
 */
import { tracer } from '../src/platform/telemetry/tracer.js';

const CALLS = 2_000_000;
const PARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

function oneCall(): void {
  const request = tracer().start('tools/call', { kind: 'server', parent: PARENT });
  const attempt = tracer().start('POST /tools/call', { kind: 'client', parent: request });
  if (attempt.recording) attempt.setAttribute('mcp_oxp_bridge.attempt', 1);
  attempt.end();
  if (request.recording) request.setAttribute('mcp.method.name', 'tools/call');
  request.end();
}

for (let i = 0; i < 100_000; i++) oneCall();
const started = process.cpuUsage();
for (let i = 0; i < CALLS; i++) oneCall();
const used = process.cpuUsage(started);
process.stdout.write(
  `tracing off: ${(((used.user + used.system) * 1000) / CALLS).toFixed(0)} ns CPU per tools/call (the two spans' call sites, ${CALLS.toLocaleString('en-US')} calls)\n`,
);
