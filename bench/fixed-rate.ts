/**
 * `node --import tsx bench/fixed-rate.ts`: CPU per 2026-07-28 `tools/call` of the bridge, the raw forwarder and
 * the native SDK server when all three serve the same traffic — `BENCH_RATE` calls/s (default 2,000, below every
 * party's capacity here) at 8 and 64 connections, 3 rounds × 3 s alternated, medians. In `npm run bench` each
 * party runs as fast as it answers, and a process woken for more requests at a time spends less CPU on each: this
 * shows whether the bridge's ratios owe anything to its lower throughput. Build first (`npm run build`).
 */
import { load } from './lib/load.js';
import { cpuMs, startBenchServer, startBridge } from './lib/procs.js';
import { median } from './lib/stats.js';
import { toolsCallRequest } from './lib/workload.js';

const RATE = Number(process.env.BENCH_RATE ?? 2000);

async function main() {
  const oxp = await startBenchServer('oxp', 'oxp');
  const parties = [
    { label: 'bridge', child: await startBridge({ oxpUrl: oxp.url }) },
    { label: 'forwarder', child: await startBenchServer('forwarder', 'forwarder', { BENCH_OXP_URL: oxp.url }) },
    { label: 'native', child: await startBenchServer('native', 'native-sdk') },
  ];
  const cpu = new Map<string, number[]>();
  try {
    for (const p of parties) await load(p.child.url, toolsCallRequest('modern'), 8, 2);
    for (let round = 0; round < 3; round++) {
      for (const c of [8, 64]) {
        for (const p of round % 2 ? [...parties].reverse() : parties) {
          const before = cpuMs(p.child.pid)!;
          const r = await load(p.child.url, toolsCallRequest('modern'), c, 3, RATE);
          const key = `${p.label} ${c}`;
          cpu.set(key, [...(cpu.get(key) ?? []), ((cpuMs(p.child.pid)! - before) * 1000) / r.requests]);
        }
      }
    }
  } finally {
    for (const p of parties) await p.child.stop();
    await oxp.stop();
  }
  const lines = ['| c | bridge CPU µs/call | forwarder | native | bridge ÷ forwarder | bridge ÷ native |', '|---|---|---|---|---|---|'];
  for (const c of [8, 64]) {
    const [b, f, n] = ['bridge', 'forwarder', 'native'].map((l) => median(cpu.get(`${l} ${c}`)!)) as [number, number, number];
    lines.push(`| ${c} | ${b.toFixed(0)} | ${f.toFixed(0)} | ${n.toFixed(0)} | ${(b / f).toFixed(2)}× | ${(b / n).toFixed(2)}× |`);
  }
  process.stdout.write(`${lines.join('\n')}\n\n2026-07-28 tools/call at ${RATE} calls/s for every party, 3 rounds × 3 s, medians.\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
