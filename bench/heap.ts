/**
 * `node --import tsx bench/heap.ts <cliA> [cliB] [labelA] [labelB]`: what the 1,000-session scenario of `npm run bench`
 * (bench/lib/sessions.ts) keeps in the bridge's JavaScript heap, build against build. Each build runs the scenario
 * alone; its bridge writes a heap snapshot (bench/lib/heap-snapshot.mjs) when ready, after the initializes, with one
 * call of every client in flight (held by the OXP server: the same number in both builds) and after a while of
 * calls (connections still open), with RSS and `process.memoryUsage()` at each point; then the snapshots of the
 * two builds are compared by constructor (count, own size, retained size: bench/lib/heap-analysis.ts).
 * `HEAP_SESSIONS` (default 1,000), `HEAP_SECONDS` (calls, default 5), `HEAP_TOP` (rows, default 25). Snapshots stay in
 * bench/results/heap/ (not committed; ~50–100 MB each). `node --import tsx bench/heap.ts --compare <a> <b>` only
 * compares two snapshot files. Heap contents do not depend on the machine's load: valid on a busy machine.
 *
 * `HEAP_SNAPSHOTS=off`: no snapshot (writing one leaves its own memory in the RSS), `HEAP_RUNS` runs (default 3) of
 * each build alternated, and a table of RSS and `process.memoryUsage()` at each point and at their peaks during the
 * calls (sampled every 100 ms in the bridge): where the RSS goes, V8's heap or memory outside it.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Agent } from 'undici';
import { compareTable, readGraph, retainers, summarise } from './lib/heap-analysis.js';
import { REPO_ROOT, rssBytes, startBenchServer, startBridge, type Child } from './lib/procs.js';
import { driveSessions, holdCalls, openSessions, type LegacySession } from './lib/sessions.js';

const SESSIONS = Number(process.env.HEAP_SESSIONS ?? 1000);
const SECONDS = Number(process.env.HEAP_SECONDS ?? 5);
const TOP = Number(process.env.HEAP_TOP ?? 25);
const DIR = join(REPO_ROOT, 'bench/results/heap');
const POINTS = ['ready', 'sessions', 'held', 'calls'] as const;
const MB = 1024 * 1024;
const SNAPSHOTS = process.env.HEAP_SNAPSHOTS !== 'off';
const RUNS = Number(process.env.HEAP_RUNS ?? 3);

type Usage = NodeJS.MemoryUsage & { peak: Partial<NodeJS.MemoryUsage>; spaces: Record<string, number>; gc: { minor: number; major: number; pauseMs: number } };

interface Point {
  rssMB: number;
  memory: Usage;
  file: string;
  calls?: number;
}

async function snapshot(bridge: Child, base: string, n: number): Promise<Point> {
  const rssMB = rssBytes(bridge.pid)! / MB;
  bridge.proc.kill('SIGUSR2');
  const file = `${base}-${n}`;
  while (!existsSync(`${file}.done`)) await new Promise((r) => setTimeout(r, 100));
  return { rssMB, memory: JSON.parse(readFileSync(`${file}.json`, 'utf8')) as Usage, file: `${file}.heapsnapshot` };
}

/** One call per client held by the OXP server (every one in flight in the bridge at once): the snapshot then, and the calls released. */
async function held(oxp: Child, bridge: Child, base: string, sessions: LegacySession[], dispatcher: Agent): Promise<Point> {
  const holding = holdCalls(bridge.url, sessions, 64, dispatcher);
  // Until every call is in the bridge (its in-flight gauge; the scrape itself is one more), at most 60 s.
  const want = sessions.length + 64;
  const metrics = bridge.url.replace(/\/mcp$/, '/metrics');
  let inFlight = 0;
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 500))) {
    inFlight = Number(/^mcp_oxp_bridge_in_flight_requests (\d+)/m.exec(await (await fetch(metrics)).text())?.[1] ?? 0) - 1;
    if (inFlight >= want) break;
  }
  const atUpstream = Number(await (await fetch(`${oxp.url}/held`)).text());
  const point = await snapshot(bridge, base, 2);
  await fetch(`${oxp.url}/release`, { method: 'POST' });
  const answered = await holding;
  process.stderr.write(
    `held: ${inFlight} calls in flight in the bridge (${atUpstream} of them at the OXP server) when the snapshot was taken; ${answered} of ${want} answered right\n`,
  );
  return point;
}

async function runBuild(cli: string, label: string): Promise<Point[]> {
  const base = join(DIR, label);
  for (let n = 0; n < POINTS.length; n++) for (const ext of ['heapsnapshot', 'json', 'done']) rmSync(`${base}-${n}.${ext}`, { force: true });
  const oxp = await startBenchServer('oxp', 'oxp');
  const bridge = await startBridge({
    oxpUrl: oxp.url,
    cli,
    nodeArgs: ['--import', join(REPO_ROOT, 'bench/lib/heap-snapshot.mjs')],
    env: { HEAP_SNAPSHOT_OUT: base, HEAP_SNAPSHOT_WRITE: SNAPSHOTS ? 'on' : 'off' },
  });
  const dispatcher = new Agent({ connections: SESSIONS + 64, pipelining: 1 });
  const points: Point[] = [];
  try {
    points.push(await snapshot(bridge, base, 0));
    const sessions = await openSessions(bridge.url, SESSIONS, dispatcher);
    points.push(await snapshot(bridge, base, 1));
    points.push(await held(oxp, bridge, base, sessions, dispatcher));
    const r = await driveSessions(bridge.url, sessions, 64, SECONDS, dispatcher);
    process.stderr.write(`${label}: ${r.ok} calls, ${r.failed} failed\n`);
    points.push({ ...(await snapshot(bridge, base, 3)), calls: r.ok });
  } finally {
    await dispatcher.close();
    await bridge.stop();
    await oxp.stop();
  }
  for (const [i, p] of points.entries())
    process.stderr.write(
      `${label} ${POINTS[i]}: RSS ${p.rssMB.toFixed(1)} MB, heap used ${(p.memory.heapUsed / MB).toFixed(1)} / total ${(p.memory.heapTotal / MB).toFixed(1)} MB, external ${(p.memory.external / MB).toFixed(1)} MB, array buffers ${(p.memory.arrayBuffers / MB).toFixed(1)} MB\n`,
    );
  return points;
}

function compare(a: string, b: string, labels: string[]): string {
  const sa = summarise(readGraph(a));
  const gb = readGraph(b);
  const sb = summarise(gb);
  const table = compareTable(sa, sb, TOP, labels);
  // Where the largest growth lives: a path of dominators for the two classes that grew most.
  const grown = [...sb.classes.values()]
    .map((c) => ({ name: c.name, delta: c.retainedSize - (sa.classes.get(c.name)?.retainedSize ?? 0) }))
    .sort((x, y) => y.delta - x.delta)
    .slice(0, 2);
  const paths = grown.flatMap(({ name }) => [
    `\n${name}, largest instances in ${labels[1]} (dominator chain):`,
    ...retainers(gb, sb, name, 2).map((p) => `  ${p}`),
  ]);
  return `${table}\n${paths.join('\n')}`;
}

/** HEAP_SNAPSHOTS=off: the builds alternated, RSS and V8's figures per run (MB). */
async function usageRuns(builds: { cli: string; label: string }[]): Promise<void> {
  const mb = (x: number | undefined) => (x === undefined ? '' : (x / MB).toFixed(1));
  const spaces = (s: Record<string, number>) => ['new_space', 'old_space', 'code_space', 'large_object_space'].map((k) => mb(s[k])).join(' / ');
  const lines = [
    '| build | run | RSS ready | RSS after initializes | heap total / used there | peak RSS in calls | peak heap total | peak new / old / code / large-object space | peak external | collections minor / major | calls |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (let run = 0; run < RUNS; run++) {
    for (const b of run % 2 ? [...builds].reverse() : builds) {
      const [ready, sessions, , calls] = await runBuild(b.cli, b.label);
      const peak = (k: keyof NodeJS.MemoryUsage) => calls!.memory.peak[k] ?? 0;
      lines.push(
        `| ${b.label} | ${run + 1} | ${ready!.rssMB.toFixed(1)} | ${sessions!.rssMB.toFixed(1)} | ${mb(sessions!.memory.heapTotal)} / ${mb(sessions!.memory.heapUsed)} | ${mb(peak('rss'))} | ${mb(peak('heapTotal'))} | ${spaces(calls!.memory.spaces)} | ${mb(peak('external'))} | ${calls!.memory.gc.minor} / ${calls!.memory.gc.major} | ${calls!.calls} |`,
      );
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === '--compare') {
    process.stdout.write(`${compare(argv[1]!, argv[2]!, ['A', 'B'])}\n`);
    return;
  }
  const [cliA = 'dist/src/cli.js', cliB, labelA = 'A', labelB = 'B'] = argv;
  mkdirSync(DIR, { recursive: true });
  if (!SNAPSHOTS) return usageRuns([{ cli: cliA, label: labelA }, ...(cliB ? [{ cli: cliB, label: labelB }] : [])]);
  const a = await runBuild(cliA, labelA);
  if (!cliB) return;
  const b = await runBuild(cliB, labelB);
  for (const [i, point] of POINTS.entries()) {
    process.stdout.write(
      `\n## ${point}: RSS ${a[i]!.rssMB.toFixed(1)} → ${b[i]!.rssMB.toFixed(1)} MB, heap used ${(a[i]!.memory.heapUsed / MB).toFixed(1)} → ${(b[i]!.memory.heapUsed / MB).toFixed(1)} MB\n\n`,
    );
    process.stdout.write(`${compare(a[i]!.file, b[i]!.file, [labelA, labelB])}\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`heap failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
