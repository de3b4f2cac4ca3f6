/**
 * A buffered writer of whole lines to a file or a standard stream, for the audit trail and the process's log: lines
 * gather and go out together, a quiet writer's within a second, and every exit can write what is left.
 *
 * Two ways to write a batch. `async` (the audit trail): `fs.write`, on libuv's thread pool. `sync` (the log on
 * stderr): `fs.writeSync` from the thread that gathered the lines, one system call per batch: a thread-pool write
 * costs the process more CPU than the write itself (bench/README.md, "Issue 33"). A `sync` writer must be given a
 * descriptor that does not block when full (a pipe or socket in non-blocking mode, a file, a terminal): a write the
 * reader is not ready for (EAGAIN) is retried every RETRY_MS from a timer, and meanwhile lines gather up to the bound.
 *
 * Replaces sonic-boom (what pino.destination is), for the audit trail not for speed: its flushSync retries a failed
 * write forever when the error is not EAGAIN (ENOSPC, EIO: `new SonicBoom({dest: '/dev/full'})`, a write, then
 * flushSync never returns), so a full disk at an uncaught error would hang the process past the shutdown timer; and
 * with `sync: true` it sleeps 100 ms on the calling thread per EAGAIN, which a process serving calls cannot do (the
 * log). Here a failed write loses its lines, counted and reported, and nothing waits on it; this writer also knows how
 * many lines each write carried, so a loss is counted in records. Held by src/calls/audit/sink.test.ts (/dev/full),
 * src/platform/line-writer.test.ts (`sync` on a pipe nobody reads), test/integration/audit-sink.test.ts and
 * test/integration/log-flush.test.ts (docs/design.md, "Owned copies of library code").
 */
import { closeSync, openSync, write, writeSync } from 'node:fs';

export interface LineWriterOptions {
  /** Lines gather until this many characters, then go out in one write. */
  flushChars: number;
  /** What a quiet writer has gathered goes out at least this often. */
  flushIntervalMs: number;
  /** While writes do not keep up, at most this much waits; further lines are lost (and counted). */
  maxBufferedChars: number;
  /** `async` (default): each batch written on libuv's thread pool; `sync`: written at once by the caller's thread. */
  writes?: 'async' | 'sync';
  /** Lines lost: a failed write (with its error), a full buffer, or a line written after close. */
  onLost(lines: number, error?: NodeJS.ErrnoException): void;
  /** A reopen that failed (the current file stays in use). */
  onReopenFailed(error: NodeJS.ErrnoException): void;
}

/** Waits between attempts of a write refused with EAGAIN (standard output on a non-blocking pipe nobody reads). */
const RETRY_MS = 20;
/** How long an exit's synchronous flush retries EAGAIN before it gives the lines up. */
const SYNC_RETRY_MS = 1000;

/** Mode of a file this writer creates: records name principals and tools, readable by the owner only. */
export const FILE_MODE = 0o600;

/** A write in progress: its bytes, how many are out, and how many lines they hold. */
interface InFlight {
  bytes: Buffer;
  offset: number;
  lines: number;
  /** 1 when the bytes start with a newline that ends a failed write's fragment (not a line of this write). */
  lead: 0 | 1;
}

function linesIn(bytes: Buffer, end: number): number {
  let n = 0;
  for (let i = bytes.indexOf(10); i !== -1 && i < end; i = bytes.indexOf(10, i + 1)) n++;
  return n;
}

export class LineWriter {
  #fd: number;
  readonly #path: string | undefined;
  readonly #options: LineWriterOptions;
  /** Lines gathered: text, or bytes given to this writer to keep (ASCII: a byte per character). */
  #pending: Array<string | Uint8Array> = [];
  #pendingChars = 0;
  #inFlight: InFlight | undefined;
  /** Lines given to write(), and lines written or lost: a flush waits until the second reaches the first. */
  #accepted = 0;
  #settled = 0;
  #waiters: { target: number; resolve: () => void }[] = [];
  #reopenAsked = false;
  /** A write failed part-way: the next one starts with a newline, so its first line is not glued to a fragment. */
  #broken = false;
  #closed = false;
  readonly #timer: NodeJS.Timeout;
  readonly #sync: boolean;
  /** A write the reader was not ready for (EAGAIN), to try again; it keeps the process alive while a flush waits. */
  #retry: NodeJS.Timeout | undefined;

  /** Opens `path` for appending (created with FILE_MODE; throws when it cannot be), or writes to `fd`. */
  constructor(target: { path: string } | { fd: number }, options: LineWriterOptions) {
    this.#options = options;
    this.#sync = options.writes === 'sync';
    this.#path = 'path' in target ? target.path : undefined;
    this.#fd = 'path' in target ? openSync(target.path, 'a', FILE_MODE) : target.fd;
    this.#timer = setInterval(() => this.#startWrite(), options.flushIntervalMs).unref();
  }

  /** `line` must end with its newline; bytes are the writer's to keep (no copy is made), and ASCII (a byte per character). */
  write(line: string | Uint8Array): void {
    if (this.#closed || this.#pendingChars + line.length > this.#options.maxBufferedChars) return this.#options.onLost(1);
    this.#pending.push(line);
    this.#pendingChars += line.length;
    this.#accepted++;
    if (this.#pendingChars >= this.#options.flushChars) this.#startWrite();
  }

  /** Resolves once every line written before the call is out (or lost); never rejects. */
  flush(): Promise<void> {
    const target = this.#accepted;
    if (this.#settled >= target) return Promise.resolve();
    return new Promise((resolve) => {
      this.#waiters.push({ target, resolve });
      this.#retry?.ref();
      this.#startWrite();
    });
  }

  /** Characters gathered and bytes of a write not yet out: how far behind the reader is. */
  get backlog(): number {
    return this.#pendingChars + (this.#inFlight ? this.#inFlight.bytes.length - this.#inFlight.offset : 0);
  }

  /**
   * Writes what is gathered now, blocking (a reader not ready is waited for up to SYNC_RETRY_MS): for an exit where
   * the event loop cannot be relied on. An `async` write already in progress is left to finish on its own (its bytes
   * are with the thread pool); a `sync` one waiting to be retried goes out first, so the lines stay in order.
   */
  flushSync(): void {
    const giveUpAt = Date.now() + SYNC_RETRY_MS;
    if (this.#sync && this.#inFlight) {
      clearTimeout(this.#retry);
      this.#retry = undefined;
      const w = this.#inFlight;
      this.#inFlight = undefined;
      this.#writeBlocking(w, giveUpAt);
    }
    if (this.#pending.length > 0) this.#writeBlocking(this.#take(), giveUpAt);
  }

  #writeBlocking(w: InFlight, giveUpAt: number): void {
    while (w.offset < w.bytes.length) {
      try {
        w.offset += writeSync(this.#fd, w.bytes, w.offset);
      } catch (error) {
        const e = error as NodeJS.ErrnoException;
        if (e.code === 'EAGAIN' && Date.now() < giveUpAt) {
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, RETRY_MS);
          continue;
        }
        return this.#done(w, e);
      }
    }
    this.#done(w);
  }

  /** The file again, by its path (logrotate moved it away): at once, or after the write in progress. */
  reopen(): void {
    if (this.#path === undefined || this.#closed) return;
    if (this.#inFlight) this.#reopenAsked = true;
    else this.#reopenNow();
  }

  /** Flushes, then closes the file; later lines are counted as lost. */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.flush();
    this.#closed = true;
    clearInterval(this.#timer);
    clearTimeout(this.#retry);
    if (this.#path !== undefined) closeQuietly(this.#fd);
  }

  #reopenNow(): void {
    this.#reopenAsked = false;
    try {
      const fd = openSync(this.#path!, 'a', FILE_MODE);
      closeQuietly(this.#fd);
      this.#fd = fd;
    } catch (error) {
      this.#options.onReopenFailed(error as NodeJS.ErrnoException);
    }
  }

  /**
   * The gathered lines as a write: their bytes (after a newline when a write failed part-way) and count. Each line is
   * encoded into the write's buffer where it goes: joining them first made a string as long as the batch, the log's
   * largest per-line garbage once the call line was written without pino (bench/README.md, issue 39).
   */
  #take(): InFlight {
    const pending = this.#pending;
    const lead = this.#broken ? 1 : 0;
    let size = lead;
    for (const line of pending) size += typeof line === 'string' ? Buffer.byteLength(line, 'utf8') : line.length;
    const bytes = Buffer.allocUnsafe(size);
    if (lead) bytes[0] = 10;
    let at = lead;
    for (const line of pending) {
      if (typeof line === 'string') at += bytes.write(line, at, 'utf8');
      else {
        bytes.set(line, at);
        at += line.length;
      }
    }
    const write: InFlight = { bytes, offset: 0, lines: pending.length, lead };
    this.#broken = false;
    this.#pending = [];
    this.#pendingChars = 0;
    return write;
  }

  #startWrite(): void {
    if (this.#inFlight || this.#pending.length === 0) return;
    this.#inFlight = this.#take();
    if (this.#sync) this.#writeNow();
    else this.#writeSome();
  }

  /** The write in progress tried again later: the reader was not ready (EAGAIN). Holds the process open while a flush waits. */
  #retryLater(again: () => void): void {
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      again();
    }, RETRY_MS);
    if (this.#waiters.length === 0) this.#retry.unref();
  }

  #writeSome(): void {
    const w = this.#inFlight!;
    write(this.#fd, w.bytes, w.offset, w.bytes.length - w.offset, null, (error, n) => {
      if (error?.code === 'EAGAIN' && !this.#closed) return this.#retryLater(() => this.#writeSome());
      if (!error && (w.offset += n) < w.bytes.length) return this.#writeSome();
      this.#written(w, error ?? undefined);
    });
  }

  /** `sync`: as much of the write in progress as the descriptor takes now, the rest retried from a timer. */
  #writeNow(): void {
    const w = this.#inFlight!;
    try {
      while (w.offset < w.bytes.length) w.offset += writeSync(this.#fd, w.bytes, w.offset);
    } catch (error) {
      const e = error as NodeJS.ErrnoException;
      if (e.code === 'EAGAIN' && !this.#closed) return this.#retryLater(() => this.#writeNow());
      return this.#written(w, e);
    }
    this.#written(w);
  }

  #written(w: InFlight, error?: NodeJS.ErrnoException): void {
    this.#inFlight = undefined;
    this.#done(w, error);
    if (this.#reopenAsked) this.#reopenNow();
    // Lines that came meanwhile go out now if a flush waits for them or enough have gathered; else at the next tick.
    if (this.#waiters.length || this.#pendingChars >= this.#options.flushChars) this.#startWrite();
  }

  /** A write ended: every line of it settled (a flush waits for it no longer), those not out counted as lost. */
  #done(w: InFlight, error?: NodeJS.ErrnoException): void {
    this.#settled += w.lines;
    if (error) {
      // Only whole lines count as out; the fragment of one is cut off from the next write by a newline.
      if (w.offset > 0) this.#broken = true;
      this.#options.onLost(w.lines - Math.max(0, linesIn(w.bytes, w.offset) - w.lead), error);
    }
    const ready = this.#waiters.filter((x) => this.#settled >= x.target);
    if (ready.length === 0) return;
    this.#waiters = this.#waiters.filter((x) => this.#settled < x.target);
    for (const x of ready) x.resolve();
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already closed or never valid: nothing to release.
  }
}
