/**
 * Logging: pino, always to stderr (stdout belongs to the stdio protocol).
 * Secrets are redacted by path as a second line of defence; the first is that
 * no code logs them.
 */
import { pino, type Logger } from 'pino';

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

/** Lines gather until this many bytes, then go out in one write: a write per line was a syscall per call. */
const FLUSH_BYTES = 4096;
/** What a quiet process has gathered goes out at least this often (for `docker logs` and whoever tails stderr). */
const FLUSH_INTERVAL_MS = 1000;
/** While stderr is not read, at most this much waits in memory; further lines are dropped (and counted) rather than held. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

export function createLogger(level: string, destination: NodeJS.WritableStream | ProcessLog['destination'] = process.stderr): Logger {
  return pino(
    {
      level,
      base: { service: 'mcp-oxp-bridge' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

export interface ProcessLog {
  log: Logger;
  destination: ReturnType<typeof pino.destination>;
  /** Writes what is gathered, after a write in progress: for an orderly exit (and once start-up has been logged). */
  flush(): Promise<void>;
  /** Writes what is gathered now, blocking: for a fatal error, where the event loop cannot be relied on. */
  flushSync(): void;
}

/**
 * The commands' logger: pino's asynchronous, buffered destination on stderr (sonic-boom; what pino's
 * documentation recommends for throughput). Whoever exits the process flushes it first; pino also flushes
 * it synchronously on the process's `exit` event, the net under every path.
 */
export function createProcessLogger(level: string): ProcessLog {
  const destination = pino.destination({ dest: 2, sync: false, minLength: FLUSH_BYTES, maxLength: MAX_BUFFERED_BYTES, periodicFlush: FLUSH_INTERVAL_MS });
  const log = createLogger(level, destination);
  let dropped = 0;
  destination.on('drop', () => void dropped++);
  // 'drain': a write finished and little is left waiting; say what was lost, now that there is room again.
  destination.on('drain', () => {
    if (dropped === 0) return;
    const lines = dropped;
    dropped = 0;
    log.warn({ dropped_lines: lines }, 'stderr was not read fast enough: log lines were dropped');
  });
  return {
    log,
    destination,
    flush: () => new Promise<void>((resolve) => destination.flush(() => resolve())),
    flushSync: () => {
      try {
        destination.flushSync();
      } catch {
        // stderr closed or broken: nothing more can be written, and exiting must not wait on it.
      }
    },
  };
}
