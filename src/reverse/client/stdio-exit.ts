/**
 * Why a stdio MCP server's process went away: its exit code (or signal) and the tail of its stderr, so that "the
 * connection closed" can say what the server said before it died (a missing module, a bad flag, a refused key).
 *
 * The tail is the child's own output: it goes to the operator's log (warn), bounded to STDERR_TAIL_BYTES, and never
 * into an error text a client could read (OXP developer_message, /health).
 */
import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';

/** The most of a child's stderr kept for the log line that reports its exit. */
export const STDERR_TAIL_BYTES = 400;
/** How long a report waits for the exit status and the end of stderr once the connection closed. */
const SETTLE_MS = 1_000;

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** The process's end as the log says it: `exited with code 1`, `was killed by SIGKILL`. */
export function exitWords(exit: ProcessExit): string {
  return exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code ?? 'unknown'}`;
}

/** A stdio MCP server's process that ended; `stderrTail` only for the log (see above). */
export class McpProcessExited extends Error {
  constructor(
    readonly exit: ProcessExit,
    readonly stderrTail: string,
    when: 'start' | 'running',
    options?: ErrorOptions,
  ) {
    super(`the MCP server's process ${exitWords(exit)}${when === 'start' ? ' before it answered' : ''}`, options);
  }
}

export class StdioExitWatch {
  private tail = Buffer.alloc(0);
  private exit: ProcessExit | undefined;
  private stderrEnded = false;
  private readonly waiters: (() => boolean)[] = [];

  /** Keeps the last STDERR_TAIL_BYTES of `stderr`. */
  readStderr(stderr: Readable): void {
    stderr.on('data', (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      this.tail = Buffer.concat([this.tail, bytes]);
      if (this.tail.length > STDERR_TAIL_BYTES) this.tail = this.tail.subarray(this.tail.length - STDERR_TAIL_BYTES);
    });
    stderr.once('end', () => {
      this.stderrEnded = true;
      this.wake();
    });
  }

  /** The spawned process, once known: its exit is recorded. */
  watch(child: ChildProcess | undefined): void {
    child?.once('exit', (code, signal) => {
      this.exit = { code, signal };
      this.wake();
    });
  }

  /** The process has exited (seen before its connection's close is: a child's `exit` comes before its `close`). */
  get hasExited(): boolean {
    return this.exit !== undefined;
  }

  /**
   * The process's exit, once it has exited and its stderr has ended (waited for up to SETTLE_MS: the connection
   * may close a moment before either is seen); undefined when it has not exited.
   */
  async exited(): Promise<{ exit: ProcessExit; stderrTail: string } | undefined> {
    if (!this.exit || !this.stderrEnded) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, SETTLE_MS);
        timer.unref();
        this.waiters.push(() => {
          if (!this.exit || !this.stderrEnded) return false;
          clearTimeout(timer);
          resolve();
          return true;
        });
      });
    }
    if (!this.exit) return undefined;
    // Trimmed, and cut at a whole character (the cut may fall inside one).
    const stderrTail = this.tail
      .toString('utf8')
      .replace(/^\uFFFD/, '')
      .trim();
    return { exit: this.exit, stderrTail };
  }

  private wake(): void {
    for (let i = this.waiters.length - 1; i >= 0; i--) if (this.waiters[i]!()) this.waiters.splice(i, 1);
  }
}
