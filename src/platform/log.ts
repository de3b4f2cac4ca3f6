/**
 * Logging: pino, always to stderr (stdout belongs to the stdio protocol).
 * Secrets are redacted by path as a second line of defence; the first is that
 * no code logs them.
 */
import { fstatSync } from 'node:fs';
import { pino, type Logger } from 'pino';
import { addLineWriter, CallLineWriter } from './log-line.js';
import { LineWriter } from './line-writer.js';
import { isoTime, isoTimeInto } from './log-time.js';

export type { Logger };

export const REDACT_PATHS = [
  'authorization',
  'headers.authorization',
  'headers["oxp-api-key"]',
  'headers["x-api-key"]',
  'context.secrets',
  'context.authorization',
  'request.context',
  'developer_message',
  'token',
  'apiKey',
  'secret',
];

/** Lines gather until this many characters, then go out in one write: a write per line was a system call per call. */
const FLUSH_CHARS = 4096;
/** What a quiet process has gathered goes out at least this often (for `docker logs` and whoever tails stderr). */
const FLUSH_INTERVAL_MS = 1000;
/** While stderr is not read, at most this much waits in memory; further lines are dropped (and counted) rather than held. */
const MAX_BUFFERED_CHARS = 16 * 1024 * 1024;
/** How often a process that dropped lines looks whether stderr has room again, to say how many. */
const DROP_REPORT_MS = 1000;

const BASE = { service: 'mcp-oxp-bridge' };
/** The bindings as pino writes them after the time: `,"service":"mcp-oxp-bridge"`. */
const BINDINGS = Buffer.from(`,${JSON.stringify(BASE).slice(1, -1)}`, 'latin1');

/** A pino logger, and beside it the writer of the per-call line (log-line.ts), to the same destination. */
export function createLogger(level: string, destination: NodeJS.WritableStream | LineDestination = process.stderr): Logger {
  const log = pino(
    {
      level,
      base: BASE,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: isoTime,
    },
    destination,
  );
  addLineWriter(log, new CallLineWriter(destination, BINDINGS, isoTimeInto));
  return log;
}

/** What pino writes its lines to: each call one whole line. */
export interface LineDestination {
  write(line: string): void;
  /** The call line as bytes (log-line.ts), the destination's to keep: a string of it is not made. */
  writeBytes?(line: Uint8Array): void;
}

export interface ProcessLog {
  log: Logger;
  /** Writes what is gathered (after a write the reader was not ready for): for an orderly exit, and once start-up has been logged. */
  flush(): Promise<void>;
  /** Writes what is gathered now, blocking (a reader not ready is waited for up to a second): for a fatal error, where the event loop cannot be relied on. */
  flushSync(): void;
  /** Lines dropped so far because stderr was not read (the bound was full) or could not be written. */
  dropped(): number;
}

/**
 * The commands' logger on stderr: lines gathered in memory and written by the main thread, one `write` per batch
 * (LineWriter, `sync`), at FLUSH_CHARS or within FLUSH_INTERVAL_MS. Not pino's asynchronous destination: that writes
 * from libuv's thread pool, and the process pays for those threads, more than for the write (bench/README.md, "Issue
 * 33"). Whoever exits the process flushes it first, and the `exit` event writes what is left, the net under every path.
 *
 * A pipe or socket on stderr is put in non-blocking mode (Node does so when `process.stderr` is first used: libuv opens
 * it as a stream), so a reader that stops reading never blocks the process: lines gather up to MAX_BUFFERED_CHARS, the
 * rest are dropped and counted, and once stderr takes lines again one warning says how many were lost
 * (docs/observability.md, "Logs"). A file or a terminal is written as it is. `target` is for tests: another
 * descriptor (already non-blocking where it needs to be) and a smaller bound.
 */
export function createProcessLogger(level: string, target: { fd?: number; maxBufferedChars?: number } = {}): ProcessLog {
  const { fd = 2, maxBufferedChars = MAX_BUFFERED_CHARS } = target;
  if (fd === 2) nonBlockingStderr();
  let dropped = 0;
  let unreported = 0;
  let watching: NodeJS.Timeout | undefined;
  const writer = new LineWriter(
    { fd },
    {
      writes: 'sync',
      flushChars: FLUSH_CHARS,
      flushIntervalMs: FLUSH_INTERVAL_MS,
      maxBufferedChars,
      onLost: (lines, error) => {
        dropped += lines;
        // A failed write (stderr closed): nothing can be told. A full bound: told once stderr is read again.
        if (error) return;
        unreported += lines;
        watching ??= setInterval(reportWhenRead, DROP_REPORT_MS).unref();
      },
      onReopenFailed: () => undefined, // a descriptor, never reopened
    },
  );
  const log = createLogger(level, { write: (line: string) => writer.write(line), writeBytes: (line: Uint8Array) => writer.write(line) });
  function reportWhenRead() {
    if (writer.backlog > maxBufferedChars / 2) return;
    clearInterval(watching);
    watching = undefined;
    const lines = unreported;
    unreported = 0;
    log.warn({ dropped_lines: lines }, 'stderr was not read fast enough: log lines were dropped');
  }
  process.on('exit', () => writer.flushSync());
  return {
    log,
    flush: () => writer.flush(),
    flushSync: () => writer.flushSync(),
    dropped: () => dropped,
  };
}

/** A pipe or socket on stderr in non-blocking mode (see createProcessLogger): what Node does when it opens `process.stderr` on one. */
function nonBlockingStderr(): void {
  try {
    const stat = fstatSync(2);
    if (stat.isFIFO() || stat.isSocket()) void process.stderr;
  } catch {
    // stderr closed: writes will fail and be counted.
  }
}
