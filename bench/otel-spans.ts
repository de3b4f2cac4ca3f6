/**
 * `node --import tsx bench/otel-spans.ts`: the span work of one traced
 * `tools/call` in isolation, CPU µs per call: the MCP request's server span
 * and the OXP attempt's client span, with the attributes the call sites set,
 * through the real facade (src/platform/telemetry/otel-sdk.ts: the SDK's tracer, batch
 * processor and the OTLP exporter of `BENCH_OTEL_PROTOCOL`, http/protobuf by
 * default) to a sink in a child process. No bridge, no load
 * generator: a machine-independent-ish view of what tracing adds to a call
 * (the bridge under load pays more: bench/otel.ts measures that).
 * Then, in a pass of its own (the profiler slows the calls down), the bytes
 * of JavaScript heap allocated per call, garbage included (V8's sampling heap
 * profiler keeping the objects young- and old-generation collections freed),
 * and the functions that allocate most. Unlike CPU time this hardly moves
 * with the machine's load, and in a busy bridge each byte also makes the
 * young-generation collections that copy every request's live objects come
 * sooner (bench/README.md, "Tracing cost").
 * Knobs: `BENCH_SPANS_CALLS` (200000), `OTEL_BSP_MAX_EXPORT_BATCH_SIZE` (512).
 */
import { Session } from 'node:inspector/promises';
import { createLogger } from '../src/platform/log.js';
import { ATTR, EXECUTE_TOOL, publicUrl } from '../src/platform/telemetry/attributes.js';
import { startOtlpSink, tracedEnv } from './lib/otlp-sink.js';
import { tracingDecision } from '../src/platform/telemetry/tracing-settings.js';
import { createOtelTracer } from '../src/platform/telemetry/otel-sdk.js';
import type { Attributes, Tracer } from '../src/platform/telemetry/tracer.js';

async function main() {
  const sink = await startOtlpSink();
  // The exporter reads its endpoint from the environment, as in the bridge.
  Object.assign(process.env, tracedEnv(sink.url));
  const decision = tracingDecision(process.env, 'bench');
  if (!decision.enabled) throw new Error('tracing did not turn on');
  const tracer = await createOtelTracer(decision.settings, '0.0.0', createLogger('warn'));
  const url = publicUrl('http://127.0.0.1:43210/tools/call')!;
  const target: Attributes = {
    [ATTR.httpMethod]: 'POST',
    [ATTR.upstream]: 'default',
    [ATTR.urlFull]: url.full,
    [ATTR.serverAddress]: url.address,
    [ATTR.serverPort]: url.port,
  };

  const calls = Number(process.env.BENCH_SPANS_CALLS ?? 200_000);
  const run = async (n: number) => {
    for (let i = 0; i < n; i++) {
      oneCall(tracer, target, i);
      if (i % 200 === 0) await new Promise((r) => setImmediate(r)); // exports run between requests, as in a server
    }
    await new Promise((r) => setTimeout(r, 1200)); // the last batch's export counts too
  };
  await run(20_000); // warm-up
  const perCall: number[] = [];
  for (let round = 0; round < 5; round++) {
    const c0 = process.cpuUsage();
    await run(calls / 5);
    const c = process.cpuUsage(c0);
    perCall.push((c.user + c.system) / (calls / 5));
  }
  perCall.sort((a, b) => a - b);
  const allocated = await allocationPerCall(() => run(ALLOCATION_CALLS));
  await tracer.shutdown();
  const { exports, spansBytes: bytes } = await sink.stats();
  await sink.close();
  process.stdout.write(
    `span work per traced call: median ${perCall[2]!.toFixed(1)} µs CPU (min ${perCall[0]!.toFixed(1)}, 5 rounds of ${calls / 5}); ${exports} exports, ${(bytes / exports / 1024).toFixed(0)} KiB each\n`,
  );
  process.stdout.write(
    `heap allocated per traced call: ${(allocated.total / ALLOCATION_CALLS).toFixed(0)} bytes (${ALLOCATION_CALLS} calls, sampled every 256 bytes); most by\n`,
  );
  for (const [where, bytes] of allocated.top) process.stdout.write(`  ${(bytes / ALLOCATION_CALLS).toFixed(0).padStart(6)} B  ${where}\n`);
}

const ALLOCATION_CALLS = 50_000;

interface SamplingNode {
  callFrame: { functionName: string; url: string };
  selfSize: number;
  children: SamplingNode[];
}

/** Bytes allocated while `work` runs, collected garbage included, by allocating function. */
async function allocationPerCall(work: () => Promise<void>): Promise<{ total: number; top: [string, number][] }> {
  const session = new Session();
  session.connect();
  // The two include* options keep what collections freed in the profile (V8 ≥ 11.2; Node 20 has them, its types not yet).
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 256,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  } as { samplingInterval: number });
  await work();
  const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: SamplingNode } };
  session.disconnect();
  const byFunction = new Map<string, number>();
  let total = 0;
  const walk = (node: SamplingNode) => {
    const { functionName, url } = node.callFrame;
    // By function and file only: under tsx the line numbers are the transpiled module's.
    const where = `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}`;
    if (node.selfSize) byFunction.set(where, (byFunction.get(where) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  return { total, top: [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 6) };
}

/** What bridge.ts (callTool, endRequestSpan) and call-runner.ts (run, endAttempt) do with spans for one successful call. */
function oneCall(tracer: Tracer, target: Attributes, i: number): void {
  const server = tracer.start('tools/call', { kind: 'server', parent: undefined });
  const attempt = tracer.start('POST /tools/call', { kind: 'client', parent: server });
  if (attempt.traceparent === undefined || server.traceId === undefined) throw new Error('no trace context');
  if (attempt.recording) {
    attempt.set(target);
    attempt.setAttribute(ATTR.toolName, 'Bench.Echo@1.0.0');
    attempt.setAttribute(ATTR.toolCallId, `call-${i}`);
    attempt.setAttribute(ATTR.attempt, 1);
    attempt.setAttribute(ATTR.outcome, 'success');
    attempt.setAttribute(ATTR.circuit, 'closed');
    attempt.setAttribute(ATTR.httpStatus, 200);
  }
  attempt.end();
  if (server.recording) {
    server.setAttribute(ATTR.mcpMethod, 'tools/call');
    server.setAttribute(ATTR.mcpProtocolVersion, '2026-07-28');
    server.setAttribute(ATTR.outcome, 'success');
    server.setAttribute(ATTR.operation, EXECUTE_TOOL);
    server.rename('tools/call echo');
    server.setAttribute(ATTR.toolName, 'echo');
    server.setAttribute(ATTR.upstream, 'default');
  }
  server.end();
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
