/**
 * `npm run bench:ab -- <cliA> <cliB> [label A] [label B]`: before/after for
 * one change. Two bridge builds (e.g. a copy of the previous dist/ and the
 * current one) run against the same OXP server and are driven alternately,
 * `AB_ROUNDS` rounds (default 3) of `AB_SECONDS` (default 4) per cell, so a
 * noisy neighbour hits both alike, in `AB_PASSES` passes (default 2) that start
 * the two bridges in alternate order (which one started first mattered). Reports the median req/s, p50 and the
 * bridge's CPU µs per call for each build, request shape and concurrency: the whole process's, as the operating system
 * bills it (every thread), and of that the main thread's and the other threads' (libuv's pool, V8's helpers).
 * Each bridge runs on its own core, the OXP server and this process on the others (lib/machine.ts, `BENCH_PIN`).
 * `AB_ARGS` adds bridge flags to both, `AB_ARGS_A` / `AB_ARGS_B`
 * to one of them (same build, two settings); `AB_LOG_LEVEL` sets both bridges' level (default warn),
 * `AB_LOG_LEVEL_A` / `AB_LOG_LEVEL_B` one's (e.g. the same build at warn and info); `AB_NODE_ARGS_A` / `AB_NODE_ARGS_B` add node flags.
 * Logs always go to a pipe drained by a `cat` of their own.
 */
import { load } from './lib/load.js';
import { loadLine, machineHeader, pinSelf } from './lib/machine.js';
import { startBenchServer, startBridge, threadCpu, threadCpuPerCall, type Child } from './lib/procs.js';
import { median } from './lib/stats.js';
import { PROTOCOLS, toolsCallRequest } from './lib/workload.js';

const [cliA = 'dist-before/src/cli.js', cliB = 'dist/src/cli.js', labelA = 'before', labelB = 'after'] = process.argv.slice(2);
const ROUNDS = Number(process.env.AB_ROUNDS ?? 3);
const PASSES = Number(process.env.AB_PASSES ?? 2);
const SECONDS = Number(process.env.AB_SECONDS ?? 4);
const CONNS = (process.env.AB_CONNECTIONS ?? '1,8,64').split(',').map(Number);
const extraArgs = (process.env.AB_ARGS ?? '').split(' ').filter(Boolean);
const argsA = [...extraArgs, ...(process.env.AB_ARGS_A ?? '').split(' ').filter(Boolean)];
const argsB = [...extraArgs, ...(process.env.AB_ARGS_B ?? '').split(' ').filter(Boolean)];

const levelA = process.env.AB_LOG_LEVEL_A ?? process.env.AB_LOG_LEVEL ?? 'warn';
const levelB = process.env.AB_LOG_LEVEL_B ?? process.env.AB_LOG_LEVEL ?? 'warn';

interface Samples {
  rps: number[];
  p50: number[];
  cpu: number[];
  main: number[];
  others: number[];
}

async function main() {
  pinSelf();
  process.stderr.write(`${machineHeader('bench:ab')}\n`);
  const oxp = await startBenchServer('oxp', 'oxp');
  const specs = [
    { label: labelA, cli: cliA, args: argsA, nodeArgs: process.env.AB_NODE_ARGS_A, logLevel: levelA },
    { label: labelB, cli: cliB, args: argsB, nodeArgs: process.env.AB_NODE_ARGS_B, logLevel: levelB },
  ];
  const start = (spec: (typeof specs)[number]) =>
    startBridge({
      oxpUrl: oxp.url,
      cli: spec.cli,
      args: spec.args,
      logLevel: spec.logLevel,
      nodeArgs: (spec.nodeArgs ?? '').split(' ').filter(Boolean),
    });
  const results = new Map<string, Samples>();
  try {
    // Each pass starts both bridges anew, the second in the other order: the bridge started first was measured
    // cheaper whichever build it was (up to 30 % in one session), so a single order is not a comparison.
    for (let pass = 0; pass < PASSES; pass++) {
      const builds: { label: string; child: Child }[] = [];
      try {
        for (const spec of pass % 2 ? [...specs].reverse() : specs) builds.push({ label: spec.label, child: await start(spec) });
        for (const b of builds) for (const p of PROTOCOLS) await load(b.child.url, toolsCallRequest(p), 8, 1);
        for (let round = 0; round < ROUNDS; round++) {
          for (const protocol of PROTOCOLS) {
            for (const c of CONNS) {
              for (const b of round % 2 ? [...builds].reverse() : builds) {
                const cpu0 = threadCpu(b.child.pid)!;
                const r = await load(b.child.url, toolsCallRequest(protocol), c, SECONDS);
                const cpu = threadCpuPerCall(cpu0, threadCpu(b.child.pid)!, r.requests);
                const key = `${protocol} c=${c} ${b.label}`;
                const acc = results.get(key) ?? { rps: [], p50: [], cpu: [], main: [], others: [] };
                acc.rps.push(r.rps);
                acc.p50.push(r.p50);
                acc.cpu.push(cpu.total);
                acc.main.push(cpu.main);
                acc.others.push(cpu.others);
                results.set(key, acc);
                if (r.errors || r.non2xx) process.stderr.write(`${key}: ${r.errors} errors, ${r.non2xx} non-2xx\n`);
              }
            }
          }
        }
      } finally {
        for (const b of builds) await b.child.stop();
      }
    }
  } finally {
    await oxp.stop();
  }
  process.stdout.write(`${table(results)}\n`);
}

/** Medians per cell; CPU as the whole process's µs per call, then (main thread + other threads). */
function table(results: Map<string, Samples>): string {
  const lines = [
    `| request | conc | ${labelA} req/s | ${labelB} req/s | Δ | ${labelA} p50 ms | ${labelB} p50 ms | ${labelA} CPU µs/call (main + others) | ${labelB} CPU µs/call (main + others) | Δ CPU |`,
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  const cpu = (x: Samples) => `${median(x.cpu).toFixed(0)} (${median(x.main).toFixed(0)} + ${median(x.others).toFixed(0)})`;
  for (const protocol of PROTOCOLS) {
    for (const c of CONNS) {
      const a = results.get(`${protocol} c=${c} ${labelA}`)!;
      const b = results.get(`${protocol} c=${c} ${labelB}`)!;
      const [ra, rb, ca, cb] = [median(a.rps), median(b.rps), median(a.cpu), median(b.cpu)];
      lines.push(
        `| ${protocol} | ${c} | ${Math.round(ra)} | ${Math.round(rb)} | ${(((rb - ra) / ra) * 100).toFixed(0)} % | ${median(a.p50).toFixed(3)} | ${median(b.p50).toFixed(3)} | ${cpu(a)} | ${cpu(b)} | ${(((cb - ca) / ca) * 100).toFixed(0)} % |`,
      );
    }
  }
  const flags = (args: string[], level: string) => `--log-level ${level}${args.length ? ` ${args.join(' ')}` : ''}`;
  lines.push(
    '',
    `${PASSES} passes (start order A, B then B, A) × ${ROUNDS} rounds × ${SECONDS} s per cell, medians of all; CPU: the whole process (/proc/<pid>/stat), then (the medians of) its main thread's and its other threads' shares.`,
    `${labelA}: ${cliA} ${flags(argsA, levelA)}; ${labelB}: ${cliB} ${flags(argsB, levelB)}.`,
    `${loadLine()} at the end.`,
  );
  return lines.join('\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`ab failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
