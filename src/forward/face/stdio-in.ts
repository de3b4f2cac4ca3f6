/**
 * stdin as the stdio transport reads it: a copy fed one line (one message) per turn of the event loop, which stops
 * being fed while the output is backed up, and for good on an orderly stop.
 *
 * The SDK's transport parses every message of a chunk it is given at once: a host that writes 200 requests before
 * reading anything hands over all 200 in one chunk, and their 200 answers then wait in the process whatever the
 * output's state. Fed a line per turn, the transport has written the answer to a quick request (a `tools/list`)
 * before it gets the next, so the writer (stdio-out.ts) knows it is backed up before another request is read.
 *
 * Lines are queued here up to `maxQueuedBytes`; beyond it stdin is not read until the transport has taken them. The
 * pieces of a line are gathered here until its newline and handed over as one: the SDK's read buffer copies itself
 * on every piece it is given (quadratic in a long line's pieces: an 11 MiB line took seconds of CPU). A line longer
 * than `maxLineBytes` is handed over as soon as it is, and the transport ends the connection for it.
 */
import type { Readable } from 'node:stream';
import { PassThrough } from 'node:stream';

const NEWLINE = 0x0a;

/** The most of stdin read ahead of the transport (in the process, not yet handed over): one chunk of a pipe read. */
export const STDIN_READ_AHEAD_BYTES = 64 * 1024;

/** The longest line gathered before it is handed over anyway: the transport's bound (mcp-server-sdk.ts), plus one. */
export const STDIN_LINE_BOUND_BYTES = 10 * 1024 * 1024 + 1;

export class StdinFeed {
  /** What the transport reads instead of stdin. */
  readonly input = new PassThrough();
  private readonly queue: Buffer[] = [];
  private queuedBytes = 0;
  private paused = false;
  private stopped = false;
  private finished = false;
  private scheduled = false;
  /** The pieces of a line whose newline has not come yet. */
  private partial: Buffer[] = [];
  private partialBytes = 0;

  /** @param onIdle told whenever everything read has been handed over and parsed (`idle` turned true). */
  constructor(
    private readonly stdin: Readable,
    private readonly onIdle: () => void,
    private readonly maxQueuedBytes = STDIN_READ_AHEAD_BYTES,
    private readonly maxLineBytes = STDIN_LINE_BOUND_BYTES,
  ) {
    stdin.on('data', this.onData);
    stdin.once('error', (error) => this.input.destroy(error));
  }

  /** Nothing read is waiting to be handed over (what the copy itself holds included), or nothing ever will be. */
  get idle(): boolean {
    return this.finished || (this.queue.length === 0 && this.input.readableLength === 0);
  }

  /** Ends the transport's input (or the transport has gone): what was not handed over by now never will be. */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.stop();
    if (this.partialBytes > 0) this.input.write(this.takePartial());
    this.input.end();
  }

  /** Stops (true) or resumes (false) feeding the transport: the output is backed up, or no longer. */
  pause(paused: boolean): void {
    this.paused = paused;
    if (!paused) this.feed();
  }

  /** Reads stdin no more (an orderly stop); what was read is still fed to the transport, backed-up output or not. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.stdin.off('data', this.onData);
    this.stdin.pause();
    this.paused = false;
    this.feed();
  }

  private readonly onData = (chunk: Buffer | string): void => {
    let data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (let nl = data.indexOf(NEWLINE); nl !== -1; nl = data.indexOf(NEWLINE)) {
      const end = data.subarray(0, nl + 1);
      this.enqueue(this.partialBytes > 0 ? Buffer.concat([this.takePartial(), end]) : end);
      data = data.subarray(nl + 1);
    }
    if (data.length > 0) {
      this.partial.push(data);
      this.partialBytes += data.length;
      if (this.partialBytes > this.maxLineBytes) this.enqueue(this.takePartial());
    }
    if (this.queuedBytes > this.maxQueuedBytes) this.stdin.pause();
    this.feed();
  };

  private takePartial(): Buffer {
    const line = Buffer.concat(this.partial, this.partialBytes);
    this.partial = [];
    this.partialBytes = 0;
    return line;
  }

  private enqueue(piece: Buffer): void {
    this.queue.push(piece);
    this.queuedBytes += piece.length;
  }

  /** Hands pieces over until a whole line has gone (then again next turn), the queue is empty, or the feed is paused. */
  private feed(): void {
    if (this.scheduled || this.finished) return;
    while (!this.paused && this.queue.length > 0) {
      const piece = this.queue.shift()!;
      this.queuedBytes -= piece.length;
      this.input.write(piece);
      if (piece[piece.length - 1] === NEWLINE && this.queue.length > 0) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.feed();
        });
        break;
      }
    }
    if (!this.stopped && this.queuedBytes <= this.maxQueuedBytes / 2 && this.stdin.isPaused()) this.stdin.resume();
    // After this turn: the transport has parsed what was just handed over (and counted its requests).
    if (this.queue.length === 0)
      setImmediate(() => {
        if (this.idle) this.onIdle();
      });
  }
}
