/**
 * `node --import tsx bench/otel-split.ts`: where tracing's extra CPU goes. Two
 * bridges (tracing off, and on with 100 % sampling exporting to a local sink),
 * both driven at the same fixed rate, alternated; per call: user and system
 * CPU time, context switches, and CPU time by thread (the main thread against
 * V8's and libuv's helper threads, which a `--cpu-prof` profile does not see).
 * Knobs: `ROUNDS` (7), `BENCH_OTEL_RATE` (2000 calls/s).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { load } from './lib/load.js';
import { startOtlpSink, tracedEnv } from './lib/otlp-sink.js';
import { MS_PER_TICK, startBenchServer, startBridge, statFields } from './lib/procs.js';
import { toolsCallRequest } from './lib/workload.js';

const ROUNDS = Number(process.env.ROUNDS ?? 7);
const RATE = Number(process.env.BENCH_OTEL_RATE ?? 2000);

interface Sample {
  user: number;
  sys: number;
  voluntary: number;
  involuntary: number;
  mainThread: number;
  otherThreads: number;
}

function sample(pid: number): Sample {
  const own = statFields(`/proc/${pid}/stat`);
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const switches = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)![1]);
  let mainThread = 0;
  let otherThreads = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const f = statFields(`/proc/${pid}/task/${tid}/stat`);
    const ms = (Number(f[11]) + Number(f[12])) * MS_PER_TICK;
    if (Number(tid) === pid) mainThread += ms;
    else otherThreads += ms;
  }
  return {
    user: Number(own[11]) * MS_PER_TICK,
    sys: Number(own[12]) * MS_PER_TICK,
    voluntary: switches('voluntary_ctxt_switches'),
    involuntary: switches('nonvoluntary_ctxt_switches'),
    mainThread,
    otherThreads,
  };
}

const oxp = await startBenchServer('oxp', 'oxp');
const sink = await startOtlpSink();
const bridges = {
  off: await startBridge({ oxpUrl: oxp.url }),
  on: await startBridge({ oxpUrl: oxp.url, env: tracedEnv(sink.url) }),
};
const totals = { off: { calls: 0, sum: new Map<keyof Sample, number>() }, on: { calls: 0, sum: new Map<keyof Sample, number>() } };
try {
  for (const bridge of Object.values(bridges)) await load(bridge.url, toolsCallRequest('modern'), 8, 2, RATE);
  for (let round = 0; round < ROUNDS; round++) {
    for (const label of round % 2 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
      const before = sample(bridges[label].pid);
      const r = await load(bridges[label].url, toolsCallRequest('modern'), 8, 4, RATE);
      const after = sample(bridges[label].pid);
      totals[label].calls += r.requests;
      for (const key of Object.keys(after) as (keyof Sample)[]) totals[label].sum.set(key, (totals[label].sum.get(key) ?? 0) + after[key] - before[key]);
    }
  }
} finally {
  await bridges.off.stop();
  await bridges.on.stop();
  await oxp.stop();
}
const per = (label: 'off' | 'on', key: keyof Sample, scale = 1000) => ((totals[label].sum.get(key) ?? 0) * scale) / totals[label].calls;
const rows = [
  ['user CPU, µs/call', 'user'],
  ['system CPU, µs/call', 'sys'],
  ['main thread CPU, µs/call', 'mainThread'],
  ['other threads CPU, µs/call', 'otherThreads'],
] as const;
const lines = ['| 2026-07-28 tools/call, c=8 | off | on | Δ |', '|---|---|---|---|'];
for (const [name, key] of rows)
  lines.push(`| ${name} | ${per('off', key).toFixed(1)} | ${per('on', key).toFixed(1)} | ${(per('on', key) - per('off', key)).toFixed(1)} |`);
for (const [name, key] of [
  ['voluntary context switches per call', 'voluntary'],
  ['involuntary context switches per call', 'involuntary'],
] as const)
  lines.push(`| ${name} | ${per('off', key, 1).toFixed(3)} | ${per('on', key, 1).toFixed(3)} | |`);
const received = await sink.stats();
lines.push(
  '',
  `${ROUNDS} rounds × 4 s per bridge at ${RATE} calls/s, alternated; sink: ${received.exports} exports, ${(received.spansBytes / 1048576).toFixed(0)} MiB.`,
);
await sink.close();
process.stdout.write(`${lines.join('\n')}\n`);
