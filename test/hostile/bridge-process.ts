/**
 * The bridge as a real child process (the CLI, test/helpers/cli-process.ts), for cases where a
 * failure could block the event loop or the process's exit: a frozen child
 * fails the test by timing out instead of freezing the test runner.
 */
import type { ChildProcess } from 'node:child_process';
import { startCli } from '../helpers/cli-process.js';

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
  const cli = await startCli(args, env, { timeoutMs });
  return { child: cli.child, url: cli.url, logs: cli.logs, exited: cli.exited, kill: () => void cli.child.kill('SIGKILL') };
}
