/**
 * Where the audit trail goes (the `audit` configuration section): nowhere (`off`, the default), standard output, or
 * a JSON-lines file, appended to and reopened on SIGHUP for logrotate. Separate from the operational log (stderr):
 * its own sink, its own lines, none dropped by log level.
 *
 * Writes are buffered (src/platform/line-writer.ts); the commands flush at every exit (src/commands/main.ts), so N decisions then
 * SIGTERM leave N records. A write that fails (disk full, permissions) never stops the bridge: the records are lost,
 * counted (`stats()`) and reported in the log, at most once a minute.
 */
import { ConfigError } from '../../config/errors.js';
import type { BridgeConfig } from '../../config/types.js';
import type { Logger } from '../../platform/log.js';
import { LineWriter } from '../../platform/line-writer.js';
import { auditLine, callRecord, reloadRecord, type AuditRecord, type CallDecision, type ReloadOutcome } from './record.js';

export type AuditSinkKind = 'off' | 'stdout' | 'file';

/** The `audit` section of the configuration (src/config/audit-schema.ts). */
export type AuditConfig = BridgeConfig['audit'];

export interface AuditStats {
  /** Records given to the sink (those lost included). */
  records: number;
  /** Records that never reached the sink: a failed write, a full buffer (the sink does not keep up), or after close. */
  lost: number;
  /** Writes that failed (each may lose several records). */
  writeErrors: number;
}

export interface AuditSink {
  readonly kind: AuditSinkKind;
  /** One record, as one line. */
  write(record: AuditRecord): void;
  /** One call decision: the record is built only when the sink is on. */
  call(decision: CallDecision): void;
  /** One configuration reload: the record is built only when the sink is on. */
  reload(outcome: ReloadOutcome): void;
  /** Resolves once every record written before is out (or counted lost); never rejects. */
  flush(): Promise<void>;
  /** Writes what is gathered now, blocking: for exits where the event loop cannot be relied on. */
  flushSync(): void;
  /** The file again, by its path (after logrotate moved it); nothing for the other sinks. */
  reopen(): void;
  /** Flushes, then closes the file. */
  close(): Promise<void>;
  stats(): AuditStats;
}

/** Records gather until this many characters, then go out in one write (as the log's lines do, src/platform/log.ts). */
const FLUSH_CHARS = 4096;
/** What a quiet sink has gathered goes out at least this often. */
const FLUSH_INTERVAL_MS = 1000;
/** While the sink does not keep up, at most this much waits in memory; further records are lost and counted. */
const MAX_BUFFERED_CHARS = 16 * 1024 * 1024;
/** Losses are logged at most this often (the first at once); the counters hold every one. */
const REPORT_INTERVAL_MS = 60_000;

/** Every sink open in this process (a sink leaves when closed): what the commands' exits flush, whoever opened it. */
const openSinks = new Set<AuditSink>();

/** The sinks open in this process, for the exits (src/commands/main.ts) and SIGHUP. */
export function openAuditSinks(): AuditSink[] {
  return [...openSinks];
}

/** The sink the settings ask for: `sink` when set, else `file` when a path is set, else `off`. */
export function auditSinkKind(settings: AuditConfig): AuditSinkKind {
  return settings.sink ?? (settings.path ? 'file' : 'off');
}

const OFF: AuditSink = {
  kind: 'off',
  write: () => undefined,
  call: () => undefined,
  reload: () => undefined,
  flush: () => Promise.resolve(),
  flushSync: () => undefined,
  reopen: () => undefined,
  close: () => Promise.resolve(),
  stats: () => ({ records: 0, lost: 0, writeErrors: 0 }),
};

/**
 * The configured sink, its file opened (created with mode 0600 if missing). Throws ConfigError for settings that
 * cannot work: `stdout` when standard output carries the MCP protocol (transport stdio), `file` without a path or
 * with one that cannot be opened for appending.
 */
export function createAuditSink(settings: AuditConfig, log: Logger, context: { stdoutIsProtocol: boolean }): AuditSink {
  const kind = auditSinkKind(settings);
  if (kind === 'off') return OFF;
  if (kind === 'stdout' && context.stdoutIsProtocol)
    throw new ConfigError(
      'audit.sink stdout: with transport stdio, standard output is the MCP protocol channel; write the audit trail to a file (audit.path, --audit-file)',
    );
  if (kind === 'file' && !settings.path) throw new ConfigError('audit.sink file: set audit.path (--audit-file), the file to append the audit trail to');
  const path = settings.path ?? '';
  const stats: AuditStats = { records: 0, lost: 0, writeErrors: 0 };
  const report = lossReporter(log, kind === 'file' ? path : 'stdout', stats);
  const options = {
    flushChars: FLUSH_CHARS,
    flushIntervalMs: FLUSH_INTERVAL_MS,
    maxBufferedChars: MAX_BUFFERED_CHARS,
    onLost: report,
    onReopenFailed: (error: NodeJS.ErrnoException) =>
      log.error({ path, err: error.message }, 'audit file could not be reopened: records still go to the file open before'),
  };
  let writer: LineWriter;
  try {
    writer = new LineWriter(kind === 'file' ? { path } : { fd: 1 }, options);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new ConfigError(`audit.path ${path}: cannot open it for appending (${code}); its directory must exist and be writable`);
  }
  const write = (record: AuditRecord) => {
    stats.records++;
    writer.write(auditLine(record));
  };
  const sink: AuditSink = {
    kind,
    write,
    call: (decision) => write(callRecord(decision)),
    reload: (outcome) => write(reloadRecord(outcome)),
    flush: () => writer.flush(),
    flushSync: () => writer.flushSync(),
    reopen: () => writer.reopen(),
    close: async () => {
      await writer.close();
      openSinks.delete(sink);
    },
    stats: () => ({ ...stats }),
  };
  openSinks.add(sink);
  return sink;
}

/** Counts every loss; logs the first at once, then at most one line per REPORT_INTERVAL_MS with what came since. */
function lossReporter(log: Logger, where: string, stats: AuditStats): (lost: number, error?: NodeJS.ErrnoException) => void {
  let lastReport = -Infinity;
  let unreported = 0;
  return (lost, error) => {
    stats.lost += lost;
    if (error) stats.writeErrors++;
    unreported += lost;
    const now = performance.now();
    if (now - lastReport < REPORT_INTERVAL_MS) return;
    lastReport = now;
    const fields = { sink: where, lost_records: unreported, lost_total: stats.lost, ...(error ? { err: error.message } : {}) };
    unreported = 0;
    if (error) log.error(fields, 'audit records could not be written');
    else log.warn(fields, 'audit records dropped: the audit sink does not keep up');
  };
}
