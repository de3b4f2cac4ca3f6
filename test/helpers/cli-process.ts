/**
 * The real CLI as a child process: its stderr log lines collected, the URL
 * from its "listening" line, its exit as a promise. For tests whose failure
 * could freeze the event loop or the exit (tracing export, hostile peers).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cleanChildEnv, REPO_ROOT } from './it-bridge.js';
import { cliArgs } from './ts-entry.js';

export interface CliProcess {
  child: ChildProcess;
  /** The listening URL (HTTP), from the "listening" log line; '' for stdio. */
  url: string;
  logs: string[];
  exited: Promise<number | string>;
  /** SIGTERM, then wait for the exit (spans still queued are exported on the way out). */
  stop(): Promise<number | string>;
}

/**
 * The real CLI as a child process with a clean environment plus `env`
 * (`nodeArgs` go before the entry point, e.g. an extra `--import`).
 * Waits for the listening line unless `stdio` is set.
 */
export async function startCli(
  args: string[],
  env: Record<string, string>,
  options: { nodeArgs?: string[]; stdio?: boolean; timeoutMs?: number } = {},
): Promise<CliProcess> {
  const clean = cleanChildEnv();
  const child = spawn(process.execPath, cliArgs(args, options.nodeArgs), { cwd: REPO_ROOT, env: { ...clean, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  const logs: string[] = [];
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  let partial = '';
  let onLine: ((line: string) => void) | undefined;
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    partial += chunk;
    let nl: number;
    while ((nl = partial.indexOf('\n')) !== -1) {
      const line = partial.slice(0, nl);
      partial = partial.slice(nl + 1);
      logs.push(line);
      onLine?.(line);
    }
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
  if (options.stdio) return { child, url: '', logs, exited, stop };
  const timeoutMs = options.timeoutMs ?? 30_000;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Killed, so a process that never listens fails its test instead of keeping the test file (and the run) alive.
      child.kill('SIGKILL');
      reject(new Error(`no listening line within ${timeoutMs} ms:\n${logs.join('\n')}`));
    }, timeoutMs);
    const check = (line: string) => {
      const m = /"url":"(http[^"]+)"/.exec(line);
      if (m && /listening/.test(line)) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    logs.forEach(check);
    onLine = check;
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the process exited (${code}) before listening:\n${logs.join('\n')}`));
    });
  });
  return { child, url, logs, exited, stop };
}
