/**
 * `npm run bench:alloc`: JavaScript heap allocated per `tools/call` by the bridge at its default settings
 * (log level `info` to a drained pipe, console and metrics on), for the 2026-07-28 and the 2025-11-25 request,
 * garbage included. V8's sampling heap profiler runs inside the bridge child (bench/lib/heap-sampler.mjs,
 * preloaded; signals start and stop it) over a window of a fixed number of calls (8 connections, closed loop);
 * bytes per call = sampled bytes / calls answered in the window. A number of calls, not of seconds: on a busy
 * machine a few seconds may hold a few hundred calls, too few for the warm-up to have optimised the call path. Unlike CPU time this hardly moves with the machine's load, so it shows a change of a
 * few hundred bytes that `bench:ab` cannot. Then the functions that allocate most (self bytes per call; frames of
 * the bundle mapped back to src/ through its source map) and a breakdown by where the code lives.
 *
 * Knobs: `ALLOC_ROUNDS` (3 windows per request shape; the median is reported), `ALLOC_CALLS` (4000 per window,
 * after 10,000 of warm-up per shape), `ALLOC_TOP` (15), `ALLOC_ARGS` (bridge flags),
 * `BENCH_BRIDGE_CLI` (another build), `ALLOC_PROFILE_OUT` (keeps each shape's last window as
 * `<path>.<protocol>.heapprofile`, which DevTools opens: who called what allocated). The sampling interval is 256 bytes (`ALLOC_SAMPLER_INTERVAL`).
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { REPO_ROOT, startBenchServer, startBridge } from './lib/procs.js';
import { median } from './lib/stats.js';
import { PROTOCOLS, toolsCallRequest, type Protocol } from './lib/workload.js';
import { category } from './profile.js';

interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  selfSize: number;
  children: SamplingNode[];
}

const ROUNDS = Number(process.env.ALLOC_ROUNDS ?? 3);
const CALLS = Number(process.env.ALLOC_CALLS ?? 4000);
const WARM_UP_CALLS = 10_000;
const TOP = Number(process.env.ALLOC_TOP ?? 15);
const SAMPLER = pathToFileURL(fileURLToPath(new URL('./lib/heap-sampler.mjs', import.meta.url))).href;

/** Maps a frame of the bundle (dist/src/…) back to its source file and line, through the linked source map. */
class FrameNames {
  private readonly maps = new Map<string, SourceMap | null>();

  name(frame: SamplingNode['callFrame']): { where: string; category: string } {
    const fn = frame.functionName || '(anonymous)';
    const mapped = this.original(frame);
    if (mapped) return { where: `${fn} ${mapped}`, category: `bridge ${mapped.split('/').slice(0, 2).join('/')}` };
    const file = frame.url
      .replace(/^file:\/\//, '')
      .replace(REPO_ROOT, '')
      .replace(/^.*node_modules\//, '');
    return { where: `${fn} ${file}${frame.url ? `:${frame.lineNumber + 1}` : ''}`.trim(), category: category(frame.url, frame.functionName) };
  }

  private original(frame: SamplingNode['callFrame']): string | undefined {
    if (!frame.url.startsWith('file://') || !frame.url.includes('/dist/src/')) return undefined;
    const path = fileURLToPath(frame.url);
    let map = this.maps.get(path);
    if (map === undefined) {
      map = existsSync(`${path}.map`) ? new SourceMap(JSON.parse(readFileSync(`${path}.map`, 'utf8')) as SourceMapPayload) : null;
      this.maps.set(path, map);
    }
    const found = map?.findEntry(frame.lineNumber, frame.columnNumber);
    const entry = found && 'originalSource' in found ? found : undefined;
    if (!entry?.originalSource) return undefined;
    const source = entry.originalSource.replace(/^.*?(src\/)/, '$1');
    return `${source}:${(entry.originalLine ?? 0) + 1}`;
  }
}

interface Window {
  calls: number;
  bytes: number;
  byFunction: Map<string, number>;
  byCategory: Map<string, number>;
}

function summarise(profile: { head: SamplingNode }, calls: number, names: FrameNames): Window {
  const byFunction = new Map<string, number>();
  const byCategory = new Map<string, number>();
  let bytes = 0;
  const walk = (node: SamplingNode) => {
    if (node.selfSize) {
      const { where, category: c } = names.name(node.callFrame);
      byFunction.set(where, (byFunction.get(where) ?? 0) + node.selfSize);
      byCategory.set(c, (byCategory.get(c) ?? 0) + node.selfSize);
      bytes += node.selfSize;
    }
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  return { calls, bytes, byFunction, byCategory };
}

/** `amount` calls of one shape on 8 keep-alive connections; the 2xx answers counted. */
function drive(url: string, protocol: Protocol, amount: number): Promise<number> {
  const spec = toolsCallRequest(protocol);
  return new Promise((resolve, reject) => {
    autocannon(
      { url: new URL(spec.path, url).toString(), method: spec.method, headers: spec.headers, body: spec.body, connections: 8, amount, timeout: 60 },
      (error, result) => {
        if (error) return reject(error);
        if (result.non2xx) return reject(new Error(`${protocol}: ${result.non2xx} non-2xx answers`));
        // Timeouts (a machine loaded past its cores): the calls answered are the ones counted.
        if (result.errors) process.stderr.write(`${protocol}: ${result.errors} calls not answered within 60 s\n`);
        resolve(result['2xx']);
      },
    );
  });
}

async function waitFor(path: string): Promise<void> {
  const started = performance.now();
  while (!existsSync(path)) {
    if (performance.now() - started > 300_000) throw new Error(`${path} did not appear within 300 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-alloc-'));
  const out = join(dir, 'profile.json');
  const oxp = await startBenchServer('oxp', 'oxp');
  const bridge = await startBridge({
    oxpUrl: oxp.url,
    logLevel: 'info',
    nodeArgs: ['--import', SAMPLER],
    env: { ALLOC_SAMPLER_OUT: out, ...(process.env.ALLOC_SAMPLER_INTERVAL ? { ALLOC_SAMPLER_INTERVAL: process.env.ALLOC_SAMPLER_INTERVAL } : {}) },
    args: (process.env.ALLOC_ARGS ?? '').split(' ').filter(Boolean),
  });
  const names = new FrameNames();
  const windows = new Map<Protocol, Window[]>();
  try {
    /** One window of load with the profiler on: the profile and the calls answered. */
    const sampled = async (protocol: Protocol, amount: number) => {
      rmSync(out, { force: true });
      rmSync(`${out}.started`, { force: true });
      bridge.proc.kill('SIGUSR2');
      await waitFor(`${out}.started`);
      const calls = await drive(bridge.url, protocol, amount);
      bridge.proc.kill('SIGUSR2');
      await waitFor(out);
      // ALLOC_PROFILE_OUT: the last window of each shape kept (`<path>.<protocol>.heapprofile`, DevTools' format).
      if (process.env.ALLOC_PROFILE_OUT) copyFileSync(out, `${process.env.ALLOC_PROFILE_OUT}.${protocol}.heapprofile`);
      return { profile: JSON.parse(readFileSync(out, 'utf8')) as { head: SamplingNode }, calls };
    };
    for (const protocol of PROTOCOLS) await drive(bridge.url, protocol, WARM_UP_CALLS); // compiled, optimised, caches filled
    // Discarded: the first window also holds the profiler's own start-up and the modules the bridge loads late
    // (~4 MB, measured: a tenth of a 4 s window's total); idle windows after it allocate ~8 KB per second.
    for (const protocol of PROTOCOLS) await sampled(protocol, 500);
    for (let round = 0; round < ROUNDS; round++) {
      for (const protocol of PROTOCOLS) {
        const { profile, calls } = await sampled(protocol, CALLS);
        const list = windows.get(protocol) ?? [];
        list.push(summarise(profile, calls, names));
        windows.set(protocol, list);
      }
    }
  } finally {
    await bridge.stop();
    await oxp.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const lines: string[] = [];
  for (const protocol of PROTOCOLS) {
    const list = windows.get(protocol)!;
    const perCall = list.map((w) => w.bytes / w.calls);
    lines.push(
      `${protocol} tools/call: ${Math.round(median(perCall))} bytes per call (median of ${list.length} windows: ${perCall.map((b) => Math.round(b)).join(', ')})`,
    );
  }
  for (const protocol of PROTOCOLS) {
    const list = windows.get(protocol)!;
    const calls = list.reduce((n, w) => n + w.calls, 0);
    const merged = (pick: (w: Window) => Map<string, number>) => {
      const all = new Map<string, number>();
      for (const w of list) for (const [k, v] of pick(w)) all.set(k, (all.get(k) ?? 0) + v);
      return [...all].sort((a, b) => b[1] - a[1]);
    };
    lines.push('', `${protocol}: by where the code lives (bytes per call, all windows)`);
    for (const [c, b] of merged((w) => w.byCategory).slice(0, 12)) lines.push(`  ${(b / calls).toFixed(0).padStart(6)} B  ${c}`);
    lines.push(`${protocol}: top ${TOP} functions by bytes allocated (self, per call)`);
    for (const [f, b] of merged((w) => w.byFunction).slice(0, TOP)) lines.push(`  ${(b / calls).toFixed(0).padStart(6)} B  ${f}`);
  }
  process.stdout.write(
    `${lines.join('\n')}\n(bridge ${process.env.BENCH_BRIDGE_CLI ?? 'dist/src/cli.js'} at log level info, console and metrics on; windows of ${CALLS} calls on 8 connections, sampled every ${process.env.ALLOC_SAMPLER_INTERVAL ?? 256} bytes)\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`alloc failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
