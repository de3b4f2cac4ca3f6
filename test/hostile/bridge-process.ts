/**
 * The bridge as a real child process (the CLI through tsx), for cases where a
 * failure could block the event loop or the process's exit: a frozen child
 * fails the test by timing out instead of freezing the test runner.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cleanChildEnv, REPO_ROOT } from '../helpers/it-bridge.js';

export interface BridgeProcess {
  child: ChildProcess;
  /** The MCP endpoint (HTTP) or the OXP base URL (oxp-server), from the "listening" log line. */
  url: string;
  /** Every stderr line so far (pino JSON). */
  logs: string[];
  /** Resolves with the exit code (or signal name) once the process has exited. */
  exited: Promise<number | string>;
  /** SIGKILL if still running. */
  kill(): void;
}

/** Starts `cli.ts ...args` with a clean environment plus `env`, waits for its listening line. */
export async function startBridgeProcess(args: string[], env: Record<string, string> = {}, timeoutMs = 20_000): Promise<BridgeProcess> {
  const clean = cleanChildEnv();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { cwd: REPO_ROOT, env: { ...clean, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  const logs: string[] = [];
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line within ${timeoutMs} ms:\n${logs.join('\n')}`)), timeoutMs);
    let partial = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      partial += chunk;
      let nl: number;
      while ((nl = partial.indexOf('\n')) !== -1) {
        const line = partial.slice(0, nl);
        partial = partial.slice(nl + 1);
        logs.push(line);
        const m = /"url":"(http[^"]+)"/.exec(line);
        if (m && /listening/.test(line)) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the bridge exited (${code}) before listening:\n${logs.join('\n')}`));
    });
  });
  return { child, url, logs, exited, kill: () => void child.kill('SIGKILL') };
}
