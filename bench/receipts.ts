/**
 * `npm run bench:receipts [-- <copy>…]`: the receipts of the owned copies of library code (docs/design.md, "Owned
 * copies of library code"; bench/README.md, "Owned copies: receipts (issue 31)").
 *
 * Each copy is weighed end to end against the library it replaces: the bridge as built from this tree, and a build
 * with the library in the copy's place (`bench/receipts/<copy>.patch`, applied to a scratch copy of the tree, never
 * shipped). The measure is instructions, counted by valgrind's callgrind for the whole process (every thread), which
 * a loaded machine does not change the way it changes CPU time:
 *
 * - per call: the target under valgrind with callgrind's instrumentation off (a few times slower than native, not
 *   fifty) for `RECEIPTS_WARM_UP` calls, until V8 has optimized what the calls run; then instrumentation on
 *   (`callgrind_control -i on`), `RECEIPTS_CALLS` calls on one keep-alive connection, the counters dumped
 *   (`callgrind_control -d`): instructions per call, with V8's optimizing compiler's and garbage collector's shares
 *   shown apart;
 * - start-up: the bridge with the embedded demo toolkit, from exec to its first `/readyz` 200, with the warm-up
 *   after readiness switched off in both builds (`bench/receipts/no-warm-up.patch`; under valgrind its 1 s fallback
 *   would fire before readiness).
 *
 * The upstream and the load generator run outside valgrind. Each build is measured `RECEIPTS_RUNS` times (default
 * 3), builds alternated; the copy saves what the library build costs more (medians of all instructions), in % of
 * the copy build's, the shipped bridge's. A gain under ~2 % is no receipt.
 *
 * Knobs: `RECEIPTS_CALLS` (4,000), `RECEIPTS_WARM_UP` (10,000), `RECEIPTS_RUNS` (3), `RECEIPTS_CONNECTIONS` (1),
 * `RECEIPTS_NODE_ARGS` (below), `RECEIPTS_SCENARIOS` (only these, comma-separated), `RECEIPTS_DIR` (the scratch
 * directory, default a fresh one under the system's temporary directory), `RECEIPTS_PORT_BASE` (ports from there on
 * for every process started; default: free ports), `RECEIPTS_SMOKE=1` (below). Needs valgrind (Debian: `apt-get
 * install valgrind`). A run takes 2–5 minutes on a loaded machine, the whole set about two hours.
 */
import autocannon from 'autocannon';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanEnv, freePort, REPO_ROOT, startBenchServer, type Child } from './lib/procs.js';
import { median } from './lib/stats.js';
import { MESSAGE, parseMcpBody, toolsCallRequest, type HttpRequestSpec } from './lib/workload.js';
import { COPIES, type Scenario } from './receipts/copies.js';

type AutocannonResult = Parameters<Parameters<typeof autocannon>[1]>[1];

const CALLS = process.env.RECEIPTS_SMOKE === '1' ? 20 : Number(process.env.RECEIPTS_CALLS ?? 4_000);
const WARM_UP = process.env.RECEIPTS_SMOKE === '1' ? 10 : Number(process.env.RECEIPTS_WARM_UP ?? 10_000);
const RUNS = Number(process.env.RECEIPTS_RUNS ?? 3);
const CONNECTIONS = Number(process.env.RECEIPTS_CONNECTIONS ?? 1);
const SCRATCH = process.env.RECEIPTS_DIR ?? mkdtempSync(join(tmpdir(), 'receipts-'));
const ONLY_SCENARIOS = process.env.RECEIPTS_SCENARIOS?.split(',');
/** `RECEIPTS_SMOKE=1`: every build started without valgrind and checked with a few calls, nothing counted (a patch that no longer builds or answers shows in seconds). */
const SMOKE = process.env.RECEIPTS_SMOKE === '1';
/**
 * Node flags of every measured process, so that what a window counts depends on the calls rather than on timing:
 * `--single-threaded`, V8 compiles and collects on the main thread when it decides to, not on helper threads that
 * valgrind runs one at a time with the main thread; `--predictable-gc-schedule`, its heap limits do not follow
 * timings. With them and one connection, two runs of one build agree within ~0.5 %; without, up to 10 % apart.
 */
const NODE_ARGS = (process.env.RECEIPTS_NODE_ARGS ?? '--single-threaded --predictable-gc-schedule').split(' ').filter(Boolean);
let nextPort = Number(process.env.RECEIPTS_PORT_BASE ?? 0);

const port = async (): Promise<number> => (nextPort ? nextPort++ : freePort());

/** The tree as it is (src/, scripts/, assets/, config/), in `dir`, with `patches` applied and built by scripts/build.mjs. */
function build(name: string, patches: string[]): string {
  const dir = join(SCRATCH, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const path of ['src', 'scripts', 'assets', 'config', 'package.json']) cpSync(join(REPO_ROOT, path), join(dir, path), { recursive: true });
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'));
  for (const patch of patches) {
    const applied = spawnSync('git', ['apply', join(REPO_ROOT, 'bench/receipts', patch)], { cwd: dir, encoding: 'utf8' });
    if (applied.status !== 0) throw new Error(`${patch} does not apply to this tree any more (regenerate it): ${applied.stderr}`);
  }
  const built = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: dir, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`building ${name} failed: ${built.stderr}`);
  return join(dir, 'dist/src/cli.js');
}

interface Target {
  proc: ChildProcess;
  pid: number;
  base: string;
  out: string;
}

/** `node <cli> <command> --port <a free one> <args>` under callgrind, counting from exec when `instrumented`; valgrind's own messages and the callgrind files in `out`. */
async function startUnderCallgrind(cli: string, command: string[], args: string[], out: string, instrumented: boolean): Promise<Target> {
  mkdirSync(out, { recursive: true });
  const p = await port();
  const node = [process.execPath, ...NODE_ARGS, cli, ...command, '--port', String(p), ...args];
  const callgrind = [
    '--tool=callgrind',
    `--instr-atstart=${instrumented ? 'yes' : 'no'}`,
    `--callgrind-out-file=${join(out, 'callgrind.out')}`,
    `--log-file=${join(out, 'valgrind.log')}`,
  ];
  const proc = SMOKE
    ? spawn(node[0]!, node.slice(1), { cwd: REPO_ROOT, env: cleanEnv(), stdio: ['ignore', 'ignore', 'ignore'] })
    : spawn('valgrind', [...callgrind, ...node], { cwd: REPO_ROOT, env: cleanEnv(), stdio: ['ignore', 'ignore', 'ignore'] });
  return { proc, pid: proc.pid!, base: `http://127.0.0.1:${p}`, out };
}

/** Polls `path` every second until it answers 200 (valgrind makes start-up 20–50× slower). */
async function untilReady(target: Target, path: string): Promise<void> {
  const started = Date.now();
  for (;;) {
    if (target.proc.exitCode !== null) throw new Error(`the target exited (${target.proc.exitCode}); see ${target.out}/valgrind.log`);
    try {
      const res = await fetch(target.base + path);
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() - started > 900_000) throw new Error(`${path} did not answer 200 within 15 minutes`);
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

/** Instructions counted: all of them, and V8's optimizing compiler's and garbage collector's share. */
interface Count {
  total: number;
  jit: number;
  gc: number;
}

/** Functions whose inclusive cost is the optimizing compiler's (on the main thread, or a helper's) and the collector's. */
const JIT = ['v8::internal::Compiler::CompileOptimized(', 'v8::internal::OptimizingCompileDispatcher::CompileTask::RunInternal()'];
const GC = [
  'v8::internal::Heap::CollectGarbage(',
  'v8::internal::IncrementalMarking::Step(',
  'v8::internal::ConcurrentMarking::JobTaskMajor::Run(',
  'v8::internal::Sweeper::SweeperJob::Run(',
  'v8::internal::ScavengerCollector::JobTask::Run(',
];

/** A dump's instructions (its `summary:` line) and the JIT's and GC's inclusive shares (callgrind_annotate). */
function readDump(file: string): Count {
  const summary = /^summary: (\d+)/m.exec(readFileSync(file, 'utf8'));
  if (!summary) throw new Error(`no summary line in ${file}`);
  const annotated = spawnSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', file], { encoding: 'utf8', maxBuffer: 1 << 28 }).stdout;
  const inclusive = (names: string[]) =>
    names.reduce((sum, name) => {
      const line = annotated.split('\n').find((l) => l.includes(name));
      return sum + (line ? Number(line.trim().split(' ')[0]!.replaceAll(',', '')) : 0);
    }, 0);
  return { total: Number(summary[1]), jit: inclusive(JIT), gc: inclusive(GC) };
}

/** `callgrind_control`: instrumentation on (`i`), counters zeroed (`z`), or a dump (`d`), whose counts are returned. */
function control(target: Target, op: 'i' | 'z' | 'd'): Count | undefined {
  if (SMOKE) return op === 'd' ? { total: 0, jit: 0, gc: 0 } : undefined;
  const before = new Set(readdirSync(target.out));
  const done = spawnSync('callgrind_control', op === 'i' ? ['-i', 'on', String(target.pid)] : [`-${op}`, String(target.pid)], { encoding: 'utf8' });
  if (done.status !== 0) throw new Error(`callgrind_control -${op} failed: ${done.stderr}`);
  if (op !== 'd') return undefined;
  const dump = readdirSync(target.out).find((f) => f.startsWith('callgrind.out.') && !before.has(f));
  if (!dump) throw new Error('callgrind_control -d wrote no dump');
  return readDump(join(target.out, dump));
}

async function stop(target: Target): Promise<void> {
  if (target.proc.exitCode !== null || target.proc.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => target.proc.kill('SIGKILL'), 120_000);
    target.proc.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    target.proc.kill('SIGTERM');
  });
}

/** Exactly `amount` requests on `RECEIPTS_CONNECTIONS` keep-alive connections; every answer must be a 2xx. */
async function drive(base: string, spec: HttpRequestSpec, amount: number): Promise<void> {
  const result = await new Promise<AutocannonResult>((resolve, reject) =>
    autocannon(
      { url: new URL(spec.path, base).toString(), method: spec.method, headers: spec.headers, body: spec.body, connections: CONNECTIONS, amount, timeout: 120 },
      (error, r) => (error ? reject(error) : resolve(r)),
    ),
  );
  const answered = result['2xx'];
  if (answered !== amount || result.errors || result.non2xx)
    throw new Error(`${answered} of ${amount} answered 2xx (${result.errors} errors, ${result.non2xx} non-2xx)`);
}

/** The request each per-call scenario sends. */
function workload(scenario: Exclude<Scenario, 'start-up'>): HttpRequestSpec {
  if (scenario === 'modern' || scenario === 'legacy') return toolsCallRequest(scenario);
  if (scenario === 'sdk-path') {
    // A progress token sends a plain call to the SDK's endpoint (its answer is a stream): the node ⇄ web adapter's path.
    const spec = toolsCallRequest('legacy');
    const body = JSON.parse(spec.body) as { params: Record<string, unknown> };
    body.params._meta = { progressToken: 'bench' };
    return { ...spec, body: JSON.stringify(body) };
  }
  return {
    method: 'POST',
    path: '/tools/call',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ $schema: 'urn:oxp:1.0', request: { tool_id: 'Bench.echo', input: { message: MESSAGE } } }),
  };
}

/** One answer read whole and checked: the echoed message, no error. */
async function check(base: string, spec: HttpRequestSpec): Promise<void> {
  const res = await fetch(new URL(spec.path, base), { method: spec.method, headers: spec.headers, body: spec.body });
  const text = await res.text();
  const ok = res.status === 200 && text.includes(MESSAGE) && !/"isError":true|"success":false/.test(text);
  if (!ok) throw new Error(`unexpected answer ${res.status}: ${text.slice(0, 300)}`);
  if (res.headers.get('content-type')?.includes('event-stream')) parseMcpBody(text, res.headers.get('content-type'));
}

/** Instructions per call of one build in one per-call scenario, or its start-up instructions. */
async function measure(cli: string, scenario: Scenario, upstream: string | undefined, out: string): Promise<Count> {
  if (scenario === 'start-up') {
    const target = await startUnderCallgrind(cli, [], ['--log-level', 'warn'], out, true);
    try {
      await untilReady(target, '/readyz');
      return control(target, 'd')!;
    } finally {
      await stop(target);
    }
  }
  const args = scenario === 'reverse' ? ['--mcp-url', `Bench=${upstream}`, '--log-level', 'info'] : ['--oxp-url', upstream!, '--log-level', 'info'];
  const target = await startUnderCallgrind(cli, scenario === 'reverse' ? ['oxp-server'] : [], args, out, false);
  try {
    await untilReady(target, scenario === 'reverse' ? '/health' : '/readyz');
    const path = scenario === 'reverse' ? '' : '/mcp';
    const spec = workload(scenario);
    await check(target.base + path, spec);
    await drive(target.base + path, spec, WARM_UP);
    control(target, 'i');
    control(target, 'z');
    await drive(target.base + path, spec, CALLS);
    const count = control(target, 'd')!;
    return { total: count.total / CALLS, jit: count.jit / CALLS, gc: count.gc / CALLS };
  } finally {
    await stop(target);
  }
}

/** The party a scenario's target calls, outside valgrind. */
async function startUpstream(scenario: Scenario): Promise<Child | undefined> {
  if (scenario === 'start-up') return undefined;
  const env: Record<string, string> = nextPort ? { BENCH_PORT: String(await port()) } : {};
  return scenario === 'reverse' ? startBenchServer('native', 'native-sdk', env) : startBenchServer('oxp', 'oxp', env);
}

interface Row {
  copy: string;
  scenario: Scenario;
  copyBuild: Count[];
  library: Count[];
}

async function main(): Promise<void> {
  const names = process.argv.slice(2);
  const copies = COPIES.filter((c) => names.length === 0 || names.includes(c.name));
  if (copies.length === 0) throw new Error(`no such copy; known: ${COPIES.map((c) => c.name).join(', ')}`);
  process.stderr.write(`scratch: ${SCRATCH}\n`);
  const scenarios = [...new Set(copies.flatMap((c) => c.scenarios))].filter((s) => !ONLY_SCENARIOS || ONLY_SCENARIOS.includes(s));
  const rows: Row[] = [];
  for (const scenario of scenarios) {
    const extra = scenario === 'start-up' ? ['no-warm-up.patch'] : [];
    const builds = [
      { label: 'copy', cli: build(`copy-${scenario}`, extra) },
      ...copies.filter((c) => c.scenarios.includes(scenario)).map((c) => ({ label: c.name, cli: build(`${c.name}-${scenario}`, [...extra, c.patch]) })),
    ];
    const counts = new Map<string, Count[]>(builds.map((b) => [b.label, []]));
    const upstream = await startUpstream(scenario);
    try {
      for (let run = 0; run < RUNS; run++) {
        for (const b of run % 2 ? [...builds].reverse() : builds) {
          const count = await measure(b.cli, scenario, upstream?.url, join(SCRATCH, 'runs', `${scenario}-${b.label}-${run}`));
          counts.get(b.label)!.push(count);
          process.stderr.write(`${scenario} ${b.label} run ${run + 1}: ${describe(count)}\n`);
        }
      }
    } finally {
      await upstream?.stop();
    }
    for (const b of builds.slice(1)) rows.push({ copy: b.label, scenario, copyBuild: counts.get('copy')!, library: counts.get(b.label)! });
  }
  report(rows);
}

const fmt = (n: number) => Math.round(n).toLocaleString('en');
const describe = (c: Count) => `${fmt(c.total)} (JIT ${fmt(c.jit)}, GC ${fmt(c.gc)})`;
const gain = (copy: number[], library: number[]) => `${(((median(library) - median(copy)) / median(copy)) * 100).toFixed(1)} %`;

function report(rows: Row[]): void {
  const lines = [
    `RECEIPTS_CALLS=${CALLS} RECEIPTS_WARM_UP=${WARM_UP} RECEIPTS_RUNS=${RUNS} RECEIPTS_CONNECTIONS=${CONNECTIONS} node ${NODE_ARGS.join(' ')}, ${new Date().toISOString()}`,
    '',
    '| copy | scenario | with the copy (runs) | with the library (runs) | the copy saves | of which JIT, GC (medians: copy → library) |',
    '|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const total = (counts: Count[]) => counts.map((c) => c.total);
    const runs = (values: number[]) => values.map(fmt).join(' / ');
    const part = (key: 'jit' | 'gc') => `${fmt(median(r.copyBuild.map((c) => c[key])))} → ${fmt(median(r.library.map((c) => c[key])))}`;
    lines.push(
      `| ${r.copy} | ${r.scenario} | ${runs(total(r.copyBuild))} | ${runs(total(r.library))} | ${gain(total(r.copyBuild), total(r.library))} | JIT ${part('jit')}, GC ${part('gc')} |`,
    );
  }
  const text = lines.join('\n');
  process.stdout.write(`${text}\n`);
  mkdirSync(join(REPO_ROOT, 'bench/results'), { recursive: true });
  writeFileSync(join(REPO_ROOT, 'bench/results/receipts-latest.md'), `${text}\n`);
  writeFileSync(join(REPO_ROOT, 'bench/results/receipts-latest.json'), `${JSON.stringify(rows, null, 2)}\n`);
}

await main();
