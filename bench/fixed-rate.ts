/**
 * `node --import tsx bench/fixed-rate.ts`: CPU per 2026-07-28 `tools/call` of the bridge (at `warn` and at the default
 * `info`), the raw forwarder and the native SDK server when all serve the same traffic — `BENCH_RATE` calls/s
 * (default 2,000, below every party's capacity here) at 8 and 64 connections, 3 rounds × 3 s alternated, medians. In
 * `npm run bench` each party runs as fast as it answers, and a process woken for more requests at a time spends less
 * CPU on each: this shows whether the bridge's ratios owe anything to its lower throughput. CPU is the whole process's
 * (/proc/<pid>/stat, every thread), then its main thread's; each party on its own core (lib/machine.ts). Build first
 * (`npm run build`).
 */
import { load } from './lib/load.js';
import { loadLine, machineHeader, pinSelf } from './lib/machine.js';
import { startBenchServer, startBridge, threadCpu, threadCpuPerCall } from './lib/procs.js';
import { median } from './lib/stats.js';
import { toolsCallRequest } from './lib/workload.js';

const RATE = Number(process.env.BENCH_RATE ?? 2000);
const LABELS = ['bridge', 'bridge-info', 'forwarder', 'native'] as const;

async function main() {
  pinSelf();
  process.stderr.write(`${machineHeader('fixed-rate')}\n`);
  const oxp = await startBenchServer('oxp', 'oxp');
  const parties = [
    { label: 'bridge', child: await startBridge({ oxpUrl: oxp.url }) },
    { label: 'bridge-info', child: await startBridge({ oxpUrl: oxp.url, logLevel: 'info' }) },
    { label: 'forwarder', child: await startBenchServer('forwarder', 'forwarder', { BENCH_OXP_URL: oxp.url }) },
    { label: 'native', child: await startBenchServer('native', 'native-sdk') },
  ];
  const cpu = new Map<string, { total: number[]; main: number[] }>();
  try {
    for (const p of parties) await load(p.child.url, toolsCallRequest('modern'), 8, 2);
    for (let round = 0; round < 3; round++) {
      for (const c of [8, 64]) {
        for (const p of round % 2 ? [...parties].reverse() : parties) {
          const before = threadCpu(p.child.pid)!;
          const r = await load(p.child.url, toolsCallRequest('modern'), c, 3, RATE);
          const per = threadCpuPerCall(before, threadCpu(p.child.pid)!, r.requests);
          const key = `${p.label} ${c}`;
          const acc = cpu.get(key) ?? { total: [], main: [] };
          acc.total.push(per.total);
          acc.main.push(per.main);
          cpu.set(key, acc);
        }
      }
    }
  } finally {
    for (const p of parties) await p.child.stop();
    await oxp.stop();
  }
  const lines = [
    '| c | bridge (warn) CPU µs/call (main) | bridge (info) | forwarder | native | bridge ÷ forwarder (warn / info) | native ÷ bridge (warn / info) |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const c of [8, 64]) {
    const [b, i, f, n] = LABELS.map((l) => cpu.get(`${l} ${c}`)!).map((x) => ({ total: median(x.total), main: median(x.main) }));
    const cell = (x: { total: number; main: number }) => `${x.total.toFixed(0)} (${x.main.toFixed(0)})`;
    lines.push(
      `| ${c} | ${cell(b!)} | ${cell(i!)} | ${cell(f!)} | ${cell(n!)} | ${(b!.total / f!.total).toFixed(2)}× / ${(i!.total / f!.total).toFixed(2)}× | ${(n!.total / b!.total).toFixed(2)}× / ${(n!.total / i!.total).toFixed(2)}× |`,
    );
  }
  process.stdout.write(
    `${lines.join('\n')}\n\n2026-07-28 tools/call at ${RATE} calls/s for every party, 3 rounds × 3 s, medians; CPU: the whole process (/proc/<pid>/stat), its main thread in brackets. ${loadLine()} at the end.\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
