/**
 * Child processes of the bench: start (each placed on its cores, lib/machine.ts), wait until they serve, sample RSS
 * and CPU, stop. CPU is the operating system's bill for the whole process: `/proc/<pid>/stat` utime + stime, every
 * thread included (libuv's thread pool, V8's GC and compiler threads), not the main thread alone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { placed } from './machine.js';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Child {
  name: string;
  proc: ChildProcess;
  pid: number;
  url: string;
  stop(): Promise<void>;
}

/** Environment for children: the caller's, minus anything that would configure the bridge or node. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(OXP_|MCP_|BRIDGE_|OTEL_|LOG_LEVEL$|NODE_OPTIONS$)/.test(k)) env[k] = v;
  return { ...env, ...extra };
}

function stopper(proc: ChildProcess): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
      const timer = setTimeout(() => proc.kill('SIGKILL'), 5_000);
      proc.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      proc.kill('SIGTERM');
    });
}

/** The bench servers that serve the measured party (placed with the upstream); the others are measured themselves. */
const UPSTREAM_SCRIPTS = new Set(['oxp', 'otlp-sink']);

/** Runs `node --import tsx bench/servers/<script>.ts` and waits for its `{"url"}` line. */
export async function startBenchServer(name: string, script: string, env: Record<string, string> = {}): Promise<Child> {
  const [command, args] = placed(UPSTREAM_SCRIPTS.has(script) ? 'upstream' : 'measured', process.execPath, ['--import', 'tsx', `bench/servers/${script}.ts`]);
  const proc = spawn(command, args, {
    cwd: REPO_ROOT,
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: proc.stdout });
  const url = await new Promise<string>((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`${name} exited (${code}) before listening`)));
    lines.once('line', (line) => resolve((JSON.parse(line) as { url: string }).url));
  });
  return { name, proc, pid: proc.pid!, url, stop: stopper(proc) };
}

/** A free loopback TCP port (for children that cannot report theirs). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export interface BridgeChildOptions {
  oxpUrl?: string;
  args?: string[];
  /** Extra node flags (e.g. --cpu-prof). */
  nodeArgs?: string[];
  env?: Record<string, string>;
  /** The CLI to run (default `dist/src/cli.js`, or `BENCH_BRIDGE_CLI`): lets bench/ab.ts compare two builds. */
  cli?: string;
  /** `--log-level` (default `warn`). */
  logLevel?: string;
}

/** The bridge as users run it: `node dist/src/cli.js` (built by `npm run bench`), waits for /readyz 200. */
export async function startBridge(options: BridgeChildOptions = {}): Promise<Child & { readyMs: number }> {
  const port = await freePort();
  const cli = options.cli ?? process.env.BENCH_BRIDGE_CLI ?? 'dist/src/cli.js';
  // BENCH_BRIDGE_NODE_ARGS: extra node flags for the bridge (experiments, e.g. heap sizing).
  const envNodeArgs = (process.env.BENCH_BRIDGE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const args = [
    ...envNodeArgs,
    ...(options.nodeArgs ?? []),
    cli,
    '--port',
    String(port),
    '--log-level',
    options.logLevel ?? 'warn',
    ...(options.oxpUrl ? ['--oxp-url', options.oxpUrl] : []),
    ...(options.args ?? []),
  ];
  const started = performance.now();
  // The logs go to a pipe drained by a `cat` of their own (on the load generator's cores), as a container runtime's log
  // collector does, at every level. Drained by this process (the load generator, busy), the pipe filled under load
  // and the bridge's writes met a full pipe: that cost the bridge ~100 µs per logged call. A terminal is not what
  // users run either. BENCH_BRIDGE_STDERR=inherit shows the logs here instead (for a bridge that will not start).
  const inherit = process.env.BENCH_BRIDGE_STDERR === 'inherit';
  const drain = inherit ? undefined : spawn(...placed('load', 'cat', []), { stdio: ['pipe', 'ignore', 'ignore'] });
  const proc = spawn(...placed('measured', process.execPath, args), {
    cwd: REPO_ROOT,
    env: cleanEnv(options.env),
    stdio: ['ignore', 'inherit', drain ? drain.stdin : 'inherit'],
  });
  drain?.stdin?.destroy(); // the bridge holds the write end now; cat ends when the bridge does
  const base = `http://127.0.0.1:${port}`;
  let exited = false;
  proc.once('exit', () => (exited = true));
  for (;;) {
    if (exited)
      throw new Error(`the bridge exited (${proc.exitCode}) before /readyz answered 200${inherit ? '' : ' (BENCH_BRIDGE_STDERR=inherit shows its log)'}`);
    try {
      const res = await fetch(`${base}/readyz`);
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (performance.now() - started > 30_000) throw new Error('the bridge did not become ready within 30 s');
    await new Promise((r) => setTimeout(r, 2));
  }
  const readyMs = performance.now() - started;
  return { name: 'bridge', proc, pid: proc.pid!, url: `${base}/mcp`, readyMs, stop: stopper(proc) };
}

/** Milliseconds per clock tick of /proc's CPU times (USER_HZ 100 on Linux). */
export const MS_PER_TICK = 10;

/** The fields of a /proc `stat` file after the command name: [11] is user time, [12] system time, in ticks. */
export function statFields(path: string): string[] {
  const stat = readFileSync(path, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** Resident set size in bytes (Linux /proc), or undefined elsewhere. */
export function rssBytes(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** User+system CPU time in ms (Linux /proc), or undefined elsewhere. */
export function cpuMs(pid: number): number | undefined {
  try {
    const fields = statFields(`/proc/${pid}/stat`);
    return (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK;
  } catch {
    return undefined;
  }
}

/** CPU time of a process split by thread: the main thread (its id is the pid), and the rest by thread name. */
export interface ThreadCpu {
  /** The whole process, every thread (those that ended included): what the operating system bills. */
  totalMs: number;
  mainMs: number;
  /** Threads alive now, by name (`libuv-worker`, `V8 DefaultWorke`, …), ms; the ended ones' time is in totalMs only. */
  byName: Map<string, number>;
}

/** The process's CPU by thread (Linux /proc), or undefined elsewhere. */
export function threadCpu(pid: number): ThreadCpu | undefined {
  try {
    const total = cpuMs(pid);
    if (total === undefined) return undefined;
    const byName = new Map<string, number>();
    let mainMs = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      let ms: number;
      let name: string;
      try {
        const f = statFields(`/proc/${pid}/task/${tid}/stat`);
        ms = (Number(f[11]) + Number(f[12])) * MS_PER_TICK;
        name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      } catch {
        continue; // ended meanwhile
      }
      if (tid === String(pid)) mainMs = ms;
      else byName.set(name, (byName.get(name) ?? 0) + ms);
    }
    return { totalMs: total, mainMs, byName };
  } catch {
    return undefined;
  }
}

/** What a process spent between two readings, per call: whole process, main thread, other threads (µs). */
export function threadCpuPerCall(a: ThreadCpu, b: ThreadCpu, calls: number): { total: number; main: number; others: number; byName: Map<string, number> } {
  const per = (ms: number) => (ms * 1000) / calls;
  const byName = new Map<string, number>();
  for (const [name, ms] of b.byName) byName.set(name, per(ms - (a.byName.get(name) ?? 0)));
  const total = per(b.totalMs - a.totalMs);
  const main = per(b.mainMs - a.mainMs);
  return { total, main, others: total - main, byName };
}

/** Samples RSS of some pids every `everyMs` until stopped; reports the peak and last value per pid. */
export function sampleRss(pids: number[], everyMs = 250) {
  const peak = new Map<number, number>();
  const last = new Map<number, number>();
  const tick = () => {
    for (const pid of pids) {
      const rss = rssBytes(pid);
      if (rss === undefined) continue;
      last.set(pid, rss);
      peak.set(pid, Math.max(peak.get(pid) ?? 0, rss));
    }
  };
  tick();
  const timer = setInterval(tick, everyMs);
  return {
    stop() {
      clearInterval(timer);
      tick();
      return { peak, last };
    },
  };
}
