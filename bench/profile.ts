/**
 * `npm run bench:profile`: the bridge under `node --cpu-prof`, driven with
 * `tools/call` at concurrency 8 (`PROFILE_CONCURRENCY`; `PROFILE_PROTOCOL=modern|legacy`, default
 * modern; `PROFILE_SECONDS`, default 10), then a self-time summary: top
 * functions and a breakdown by where the code lives (SDK, express, undici,
 * pino, zod, Node internals, the bridge itself…). The raw profile is kept in
 * bench/results/profiles/ (not committed) for speedscope or Chrome DevTools.
 *
 * `PROFILE_RATE=2000`: drive a fixed number of calls per second (as bench/otel.ts does) instead of a closed loop,
 * so two profiles (e.g. tracing on and off) serve the same traffic; the summary then adds CPU µs per call.
 * `PROFILE_LOG_LEVEL=info`: the bridge at that level (default warn), its log pipe drained as in `npm run bench`.
 * `PROFILE_OTEL=on`: the bridge traces every call (`always_on`) and exports
 * OTLP/HTTP to a sink in a child process that reads and discards each export
 * (as in bench/otel.ts), to see where tracing's cost goes.
 *
 * Beside the profile (the main thread only: where JavaScript runs), the operating system's bill for the same window:
 * the whole process's CPU per call from /proc (every thread), its main thread's, and the other threads' by name
 * (libuv's thread pool `libuv-worker`, V8's GC and compiler helpers, the profiler's own sampling thread). A cost that
 * lands on other threads (an asynchronous write on the thread pool, parallel GC) is in the bill, not in the profile.
 * The bridge runs on its own core (lib/machine.ts).
 *
 * `npm run bench:profile -- path/to/file.cpuprofile` only summarises a profile.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from './lib/load.js';
import { startOtlpSink, tracedEnv } from './lib/otlp-sink.js';
import { loadLine, machineHeader, pinSelf } from './lib/machine.js';
import { REPO_ROOT, startBenchServer, startBridge, threadCpu, threadCpuPerCall, type ThreadCpu } from './lib/procs.js';
import { toolsCallRequest, type Protocol } from './lib/workload.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Where a frame's code lives, for the breakdown. */
export function category(url: string, functionName: string): string {
  if (url === '') return functionName === '(garbage collector)' ? 'GC' : functionName === '(idle)' || functionName === '(program)' ? functionName : 'native/V8';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) {
    const name = pkg[1]!;
    if (name.startsWith('@modelcontextprotocol/')) {
      // The server package bundles zod: tell the two apart by chunk name where possible.
      return name;
    }
    return name;
  }
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const src = /\/(src\/[^/]+)\//.exec(url);
  if (src) return `bridge ${src[1]}`;
  return url.replace(/^file:\/\//, '').replace(REPO_ROOT, '');
}

/** `calls`: the requests the profile served (warm-up included), to add each line's µs per call. */
export function summarise(profile: CpuProfile, top = 30, calls = 0): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i] ?? 0;
    self.set(profile.samples[i]!, (self.get(profile.samples[i]!) ?? 0) + dt);
    total += dt;
  }
  const fn = new Map<string, number>();
  const cat = new Map<string, number>();
  let idle = 0;
  for (const [id, us] of self) {
    const { callFrame } = byId.get(id)!;
    if (callFrame.functionName === '(idle)') {
      idle += us;
      continue;
    }
    const where = callFrame.url ? `${callFrame.url.replace(/^file:\/\//, '').replace(REPO_ROOT, '')}:${callFrame.lineNumber + 1}` : '';
    const key = `${callFrame.functionName || '(anonymous)'} ${where}`.trim();
    fn.set(key, (fn.get(key) ?? 0) + us);
    const c = category(callFrame.url, callFrame.functionName);
    cat.set(c, (cat.get(c) ?? 0) + us);
  }
  const busy = total - idle;
  const pct = (us: number) => `${((100 * us) / busy).toFixed(1).padStart(5)} %${calls ? `${(us / calls).toFixed(1).padStart(7)} µs` : ''}`;
  const lines = [
    `profile: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy (${((100 * busy) / total).toFixed(0)} %${calls ? `, ${(busy / calls).toFixed(1)} µs per call` : ''}); shares below are of busy time${calls ? ', then µs per call' : ''}`,
    '',
    'self time by where the code lives:',
  ];
  for (const [c, us] of [...cat].sort((a, b) => b[1] - a[1]).slice(0, 20)) lines.push(`  ${pct(us)}  ${c}`);
  lines.push('', `top ${top} functions by self time:`);
  for (const [f, us] of [...fn].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`  ${pct(us)}  ${f}`);
  return lines.join('\n');
}

/** The main thread's time as the profile samples it beside the operating system's bill for the process, per call. */
function billed(a: ThreadCpu, b: ThreadCpu, calls: number, profile: CpuProfile): string {
  const per = threadCpuPerCall(a, b, calls);
  let busy = 0;
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
  for (let i = 0; i < profile.samples.length; i++) if (!idle.has(profile.samples[i]!)) busy += profile.timeDeltas[i] ?? 0;
  const threads = [...per.byName]
    .filter(([, us]) => us >= 0.05)
    .sort((x, y) => y[1] - x[1])
    .map(([name, us]) => `${name} ${us.toFixed(1)}`)
    .join(', ');
  return [
    'CPU per call, side by side (µs):',
    `  the profile's busy time (main thread, sampled)  ${(busy / calls).toFixed(1)}`,
    `  /proc, main thread                              ${per.main.toFixed(1)}`,
    `  /proc, other threads                            ${per.others.toFixed(1)}${threads ? ` (${threads})` : ''}`,
    `  /proc, whole process (what the OS bills)        ${per.total.toFixed(1)}`,
  ].join('\n');
}

async function main(): Promise<void> {
  const given = process.argv[2];
  if (given) {
    process.stdout.write(`${summarise(JSON.parse(readFileSync(given, 'utf8')) as CpuProfile)}\n`);
    return;
  }
  pinSelf();
  process.stderr.write(`${machineHeader('bench:profile')}\n`);
  const protocol = (process.env.PROFILE_PROTOCOL ?? 'modern') as Protocol;
  const seconds = Number(process.env.PROFILE_SECONDS ?? 10);
  /** Connections of the closed loop (`PROFILE_CONCURRENCY`, 8): at 1, where each call wakes every process once. */
  const concurrency = Number(process.env.PROFILE_CONCURRENCY ?? 8);
  const dir = join(REPO_ROOT, 'bench/results/profiles');
  mkdirSync(dir, { recursive: true });
  for (const f of readdirSync(dir)) if (f.startsWith('bridge-')) rmSync(join(dir, f));
  const oxp = await startBenchServer('oxp', 'oxp');
  const sink = process.env.PROFILE_OTEL === 'on' ? await startOtlpSink() : undefined;
  const env = sink ? tracedEnv(sink.url) : undefined;
  let calls: number;
  const bridge = await startBridge({
    oxpUrl: oxp.url,
    ...(process.env.PROFILE_LOG_LEVEL ? { logLevel: process.env.PROFILE_LOG_LEVEL } : {}),
    nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--cpu-prof-name=bridge-profile.cpuprofile'],
    ...(env ? { env } : {}),
  });
  let bill0: ThreadCpu | undefined;
  let bill1: ThreadCpu | undefined;
  try {
    bill0 = threadCpu(bridge.pid);
    calls = (await load(bridge.url, toolsCallRequest(protocol), 8, 2)).requests; // warm-up (in the profile too, but small)
    const rate = Number(process.env.PROFILE_RATE ?? 0);
    const r = await load(bridge.url, toolsCallRequest(protocol), concurrency, seconds, rate || undefined);
    process.stderr.write(`${protocol} c=${concurrency}${rate ? ` at ${rate} calls/s` : ''}: ${Math.round(r.rps)} req/s, p50 ${r.p50.toFixed(3)} ms\n`);
    calls += r.requests;
    bill1 = threadCpu(bridge.pid);
  } finally {
    await bridge.stop();
    await oxp.stop();
    await sink?.close();
  }
  const file = join(dir, 'bridge-profile.cpuprofile');
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const bill = bill0 && bill1 ? `${billed(bill0, bill1, calls, profile)}\n\n` : '';
  process.stdout.write(`${bill}${summarise(profile, 30, calls)}\n\nraw profile: ${file.replace(REPO_ROOT, '')}\n${loadLine()} at the end.\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    process.stderr.write(`profile failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
