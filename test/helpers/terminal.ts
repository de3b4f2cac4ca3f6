/**
 * The real CLI at a terminal, as a person runs it: util-linux's `script` gives it a pseudo-terminal for stdin,
 * stdout and stderr (so `process.stderr.isTTY` is true), and what is written to `type()` arrives as typed keys — a
 * Ctrl-C (`\x03`) is a SIGINT to the command, as from a keyboard.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cleanChildEnv, REPO_ROOT } from './it-bridge.js';
import { commandLine } from './oxp-server-harness.js';
import { cliArgs } from './ts-entry.js';

/** Why the terminal tests are skipped here, or false (under CI=true they run, and fail without `script`). */
export const NO_TERMINAL: string | false =
  spawnSync('script', ['--version']).status === 0 || process.env.CI === 'true' ? false : "util-linux's script is not installed (it makes the terminal)";

export interface TerminalCli {
  /** What the terminal showed so far, line by line (stdout and stderr alike, as a terminal shows them). */
  lines(): string[];
  /** Keys typed at the terminal. */
  type(keys: string): void;
  /** Resolves when a line matches `pattern` (rejects after `timeoutMs`, or when the command exits first). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** The command's exit status (`script -e` passes it on). */
  exited: Promise<number | null>;
  /** Stops the command and its terminal (SIGTERM to the whole group), then waits for the exit. */
  stop(): Promise<void>;
}

export function cliInTerminal(args: string[], env: Record<string, string> = {}): TerminalCli {
  // -q: no banner; -e: the command's exit status; -f: output at once; -c: the command. /dev/null: no typescript file.
  const child = spawn('script', ['-qefc', commandLine(process.execPath, cliArgs(args)), '/dev/null'], {
    cwd: REPO_ROOT,
    env: { ...cleanChildEnv(), ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // A typed Ctrl-C is echoed as `^C` at the start of the next line (the terminal's ECHOCTL): not the command's output.
  const lines = () =>
    output
      .split(/\r?\n/)
      .map((l) => l.replace(/^(\^C)+/, ''))
      .filter(Boolean);
  return {
    lines,
    type: (keys) => void child.stdin.write(keys),
    waitFor: (pattern, timeoutMs = 60_000) =>
      new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => (clearInterval(poll), reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms:\n${output}`))), timeoutMs);
        const poll = setInterval(() => {
          const line = lines().find((l) => pattern.test(l));
          if (line === undefined) return;
          clearInterval(poll);
          clearTimeout(timer);
          resolve(line);
        }, 50);
        void exited.then(() => {
          // The last output may arrive with the exit.
          setTimeout(() => {
            const line = lines().find((l) => pattern.test(l));
            clearInterval(poll);
            clearTimeout(timer);
            if (line !== undefined) resolve(line);
            else reject(new Error(`exited before a line matching ${pattern}:\n${output}`));
          }, 100);
        });
      }),
    exited,
    stop: async () => {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // gone already
      }
      await exited;
    },
  };
}

/** Whether a line is a JSON log record (and not a line for a person). */
export function isJsonLine(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}
