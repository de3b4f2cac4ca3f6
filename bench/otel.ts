/**
 * `node --import tsx bench/otel.ts`: what OpenTelemetry tracing costs per
 * `tools/call`. Bridges run side by side against one OXP server and are
 * driven alternately (rounds reverse the order, so a noisy neighbour hits all
 * alike): tracing off; tracing on with 100 % sampling (`always_on`, `on`);
 * tracing on with the default sampler (`parentbased_always_on`, `on-default`:
 * the bench's calls carry no `traceparent`, so every call is sampled there
 * too, its child spans decided from their parent); both exporting OTLP over
 * the default protocol, http/protobuf (`BENCH_OTEL_PROTOCOL=http/json` for
 * the other), to a local sink that reads and discards every export (batch
 * delay 1 s); and, with `BENCH_OTEL_BASE_CLI` pointing at a
 * build from before tracing existed, that build (so "off" is compared with
 * "never there"); with `BENCH_OTEL_ALT_CLI` (another build) and/or
 * `BENCH_OTEL_ALT_ENV` ("K=V …", e.g. other `OTEL_BSP_*` settings), a second traced variant, `on-alt`.
 * Reports the median bridge CPU µs per call (user+system,
 * /proc) and req/s per variant, and the ratios: of the medians, and the
 * median of each round's traced/off ratio ("paired": the cells of a round ran
 * back to back).
 * Every variant is driven at the same fixed rate (`BENCH_OTEL_RATE` calls/s, default 2,000; 0 = as fast as it
 * answers): CPU per call is then the cost of the same traffic.
 * Knobs: `BENCH_OTEL_ROUNDS` (5), `BENCH_OTEL_SECONDS` (3), `BENCH_OTEL_CONNECTIONS` (8).
 */
import { loadavg } from 'node:os';
import { load } from './lib/load.js';
import { startOtlpSink, tracedEnv } from './lib/otlp-sink.js';
import { cpuMs, startBenchServer, startBridge, type Child } from './lib/procs.js';
import { median } from './lib/stats.js';
import { PROTOCOLS, toolsCallRequest } from './lib/workload.js';

const ROUNDS = Number(process.env.BENCH_OTEL_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_OTEL_SECONDS ?? 3);
const CONNS = Number(process.env.BENCH_OTEL_CONNECTIONS ?? 8);
// Every variant serves the same calls per second: a closed loop lets a slower variant serve fewer calls, and a
// process woken for fewer requests at a time spends more CPU on each (less batching per event-loop turn).
const RATE = Number(process.env.BENCH_OTEL_RATE ?? 2000);
/** `BENCH_OTEL_ALT_ENV="K=V K2=V2"`: environment of the on-alt variant on top of the on variant's (e.g. other batch settings). */
function altEnv(): Record<string, string> {
  return Object.fromEntries(
    (process.env.BENCH_OTEL_ALT_ENV ?? '')
      .split(' ')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
}
async function main() {
  const load0 = loadavg();
  const oxp = await startBenchServer('oxp', 'oxp');
  const sink = await startOtlpSink();
  const variants: { label: string; child: Child }[] = [];
  if (process.env.BENCH_OTEL_BASE_CLI) variants.push({ label: 'before', child: await startBridge({ oxpUrl: oxp.url, cli: process.env.BENCH_OTEL_BASE_CLI }) });
  variants.push({ label: 'off', child: await startBridge({ oxpUrl: oxp.url }) });
  variants.push({ label: 'on', child: await startBridge({ oxpUrl: oxp.url, env: tracedEnv(sink.url) }) });
  variants.push({ label: 'on-default', child: await startBridge({ oxpUrl: oxp.url, env: tracedEnv(sink.url, undefined) }) });
  if (process.env.BENCH_OTEL_ALT_CLI || process.env.BENCH_OTEL_ALT_ENV) {
    variants.push({
      label: 'on-alt',
      child: await startBridge({ oxpUrl: oxp.url, cli: process.env.BENCH_OTEL_ALT_CLI ?? 'dist/src/cli.js', env: { ...tracedEnv(sink.url), ...altEnv() } }),
    });
  }
  const results = new Map<string, { rps: number[]; cpu: number[] }>();
  try {
    for (const v of variants) for (const p of PROTOCOLS) await load(v.child.url, toolsCallRequest(p), CONNS, 1);
    for (let round = 0; round < ROUNDS; round++) {
      for (const protocol of PROTOCOLS) {
        for (const v of round % 2 ? [...variants].reverse() : variants) {
          const cpu0 = cpuMs(v.child.pid)!;
          const r = await load(v.child.url, toolsCallRequest(protocol), CONNS, SECONDS, RATE || undefined);
          const key = `${protocol} ${v.label}`;
          const acc = results.get(key) ?? { rps: [], cpu: [] };
          acc.rps.push(r.rps);
          acc.cpu.push(((cpuMs(v.child.pid)! - cpu0) * 1000) / r.requests);
          results.set(key, acc);
          if (r.errors || r.non2xx) process.stderr.write(`${key}: ${r.errors} errors, ${r.non2xx} non-2xx\n`);
        }
      }
    }
  } finally {
    for (const v of variants) await v.child.stop();
    await oxp.stop();
  }
  const { exports, spansBytes } = await sink.stats();
  await sink.close();
  const labels = variants.map((v) => v.label);
  const traced = labels.filter((l) => l.startsWith('on'));
  const pct = (a: number, b: number) => `${a >= b ? '+' : ''}${(((a - b) / b) * 100).toFixed(1)} %`;
  const head = [
    ...labels.map((l) => `${l} CPU µs/call`),
    ...labels.map((l) => `${l} req/s`),
    ...traced.flatMap((l) => [`${l}/off CPU`, `${l}/off CPU, paired`]),
    ...(labels.includes('before') ? ['off/before CPU'] : []),
  ];
  const out = [`| request (c=${CONNS}) | ${head.join(' | ')} |`, `|---|${head.map(() => '---|').join('')}`];
  for (const protocol of PROTOCOLS) {
    const cells = (l: string) => results.get(`${protocol} ${l}`)!;
    const cpu = (l: string) => median(cells(l).cpu);
    // The same round's traced and off cells ran back to back: their ratio is less exposed to a neighbour's load swings.
    const paired = (l: string) => median(cells(l).cpu.map((c, i) => c / cells('off').cpu[i]!));
    const row = [
      ...labels.map((l) => cpu(l).toFixed(0)),
      ...labels.map((l) => median(cells(l).rps).toFixed(0)),
      ...traced.flatMap((l) => [pct(cpu(l), cpu('off')), pct(paired(l), 1)]),
      ...(labels.includes('before') ? [pct(cpu('off'), cpu('before'))] : []),
    ];
    out.push(`| ${protocol} | ${row.join(' | ')} |`);
  }
  out.push(
    '',
    `${ROUNDS} rounds × ${SECONDS} s per cell${RATE ? ` at ${RATE} calls/s` : ', as fast as each answers'}, medians; OTLP ${process.env.BENCH_OTEL_PROTOCOL ?? 'http/protobuf'}; load average before ${load0.map((x) => x.toFixed(1)).join(' / ')}, after ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' / ')}; sink received ${exports} exports, ${(spansBytes / 1048576).toFixed(1)} MiB.`,
  );
  process.stdout.write(`${out.join('\n')}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
