/** Child processes of the bench: start, wait until they serve, sample RSS and CPU, stop. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

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

/** Runs `node --import tsx bench/servers/<script>.ts` and waits for its `{"url"}` line. */
export async function startBenchServer(name: string, script: string, env: Record<string, string> = {}): Promise<Child> {
  const proc = spawn(process.execPath, ['--import', 'tsx', `bench/servers/${script}.ts`], {
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
  /** `--log-level` (default `warn`); any other level sends the logs to a pipe drained by a process of its own, as under a container runtime. */
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
  // BENCH_BRIDGE_STDERR=pipe: logs go to a pipe, not to the terminal, drained by a `cat` of their own — as a container
  // runtime's log collector does. Drained by this process (the load generator, busy), the pipe filled under load and
  // the bridge's writes went through libuv's would-block path: that cost the bridge ~100 µs per logged call.
  const piped = process.env.BENCH_BRIDGE_STDERR === 'pipe' || (options.logLevel !== undefined && options.logLevel !== 'warn');
  const drain = piped ? spawn('cat', [], { stdio: ['pipe', 'ignore', 'ignore'] }) : undefined;
  const proc = spawn(process.execPath, args, { cwd: REPO_ROOT, env: cleanEnv(options.env), stdio: ['ignore', 'inherit', drain ? drain.stdin : 'inherit'] });
  drain?.stdin?.destroy(); // the bridge holds the write end now; cat ends when the bridge does
  const base = `http://127.0.0.1:${port}`;
  let exited = false;
  proc.once('exit', () => (exited = true));
  for (;;) {
    if (exited) throw new Error(`the bridge exited (${proc.exitCode}) before /readyz answered 200`);
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
