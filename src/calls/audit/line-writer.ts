/**
 * A buffered, asynchronous writer of whole lines to a file (or standard output) for the audit trail: lines gather and
 * go out together, a quiet writer's within a second, and every exit can write what is left.
 *
 * Replaces sonic-boom (what pino.destination is, and src/platform/log.ts uses), and not for speed: its flushSync retries a
 * failed write forever when the error is not EAGAIN (ENOSPC, EIO: `new SonicBoom({dest: '/dev/full'})`, a write,
 * then flushSync never returns), so a full disk at an uncaught error would hang the process past the shutdown timer.
 * Here a failed write loses its lines, counted and reported, and nothing waits on it; this writer also knows how many
 * lines each write carried, so a loss is counted in records. Held by src/calls/audit/sink.test.ts (/dev/full) and
 * test/integration/audit-sink.test.ts (docs/design.md, "Owned copies of library code"). Delete when sonic-boom's
 * flushSync gives up on an error it cannot retry.
 */
import { closeSync, openSync, write, writeSync } from 'node:fs';

export interface LineWriterOptions {
  /** Lines gather until this many characters, then go out in one write. */
  flushChars: number;
  /** What a quiet writer has gathered goes out at least this often. */
  flushIntervalMs: number;
  /** While writes do not keep up, at most this much waits; further lines are lost (and counted). */
  maxBufferedChars: number;
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
  #pending: string[] = [];
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

  /** Opens `path` for appending (created with FILE_MODE; throws when it cannot be), or writes to `fd`. */
  constructor(target: { path: string } | { fd: number }, options: LineWriterOptions) {
    this.#options = options;
    this.#path = 'path' in target ? target.path : undefined;
    this.#fd = 'path' in target ? openSync(target.path, 'a', FILE_MODE) : target.fd;
    this.#timer = setInterval(() => this.#startWrite(), options.flushIntervalMs).unref();
  }

  /** `line` must end with its newline. */
  write(line: string): void {
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
      this.#startWrite();
    });
  }

  /**
   * Writes what is gathered now, blocking: for an exit where the event loop cannot be relied on. A write already in
   * progress is left to finish on its own (its bytes are with the operating system's thread pool).
   */
  flushSync(): void {
    if (this.#pending.length === 0) return;
    const w = this.#take();
    const giveUpAt = Date.now() + SYNC_RETRY_MS;
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

  /** The gathered lines as a write: their bytes (after a newline when a write failed part-way) and count. */
  #take(): InFlight {
    const text = this.#pending.join('');
    const lead = this.#broken ? 1 : 0;
    const write: InFlight = { bytes: Buffer.from(lead ? `\n${text}` : text, 'utf8'), offset: 0, lines: this.#pending.length, lead };
    this.#broken = false;
    this.#pending = [];
    this.#pendingChars = 0;
    return write;
  }

  #startWrite(): void {
    if (this.#inFlight || this.#pending.length === 0) return;
    this.#inFlight = this.#take();
    this.#writeSome();
  }

  #writeSome(): void {
    const w = this.#inFlight!;
    write(this.#fd, w.bytes, w.offset, w.bytes.length - w.offset, null, (error, n) => {
      if (error?.code === 'EAGAIN' && !this.#closed) return void setTimeout(() => this.#writeSome(), RETRY_MS).unref();
      if (!error && (w.offset += n) < w.bytes.length) return this.#writeSome();
      this.#inFlight = undefined;
      this.#done(w, error ?? undefined);
      if (this.#reopenAsked) this.#reopenNow();
      // Lines that came meanwhile go out now if a flush waits for them or enough have gathered; else at the next tick.
      if (this.#waiters.length || this.#pendingChars >= this.#options.flushChars) this.#startWrite();
    });
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
