/**
 * stdout for the stdio transport: every message written whole, in order, with one `drain` and one `error` listener
 * for the life of the process.
 *
 * The SDK's transport waits for a backed-up stdout by adding an `error` and a `drain` listener per message: a host
 * that reads its output late (200 requests written, the answers read 3 s later) made Node warn of a listener leak
 * (MaxListenersExceededWarning), and nothing bounded the output waiting in the process. Here, a message is handed to
 * stdout at once, and a writer waits only while more than `highWaterBytes` wait for the host: then `onBackedUp(true)`
 * (the transport stops reading stdin: no new requests, so no new answers) until stdout has drained, when every
 * waiting writer is released and `onBackedUp(false)`. What waits is then at most the mark plus the answers to the
 * requests read before it was crossed (docs/security.md, the bounds).
 */
import type { Writable } from 'node:stream';

/** More output than this waiting for the host (in the process, not yet taken by the pipe) stops stdin being read. */
export const STDIO_OUTPUT_HIGH_WATER_BYTES = 1024 * 1024;

/** Told when the output backs up (`backedUp`, with the bytes waiting then) and when the host has read it all (with the most that waited). */
export type BackedUpListener = (backedUp: boolean, waitingBytes: number) => void;

export class StdoutWriter {
  private waiters: { resolve: () => void; reject: (error: Error) => void }[] = [];
  private backedUp = false;
  private mostWaiting = 0;
  private failure: Error | undefined;

  constructor(
    private readonly out: Writable,
    private readonly onBackedUp: BackedUpListener = () => undefined,
    private readonly highWaterBytes = STDIO_OUTPUT_HIGH_WATER_BYTES,
  ) {
    out.on('drain', () => this.drained());
    // The transport's own listener closes it on a failed write; this one releases whoever waits, with the error.
    out.on('error', (error: Error) => this.fail(error));
    out.on('close', () => this.fail(new Error('stdout closed')));
  }

  /** Bytes written and not yet taken by the host's pipe. */
  get waitingBytes(): number {
    return this.out.writableLength;
  }

  /** Writes `text` (whole lines); resolves at once, or, while too much waits for the host, once it has drained. */
  write(text: string): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.out.destroyed || this.out.writableEnded) return Promise.reject(new Error('stdout closed'));
    this.out.write(text);
    const waiting = this.out.writableLength;
    if (waiting <= this.highWaterBytes) return Promise.resolve();
    this.mostWaiting = Math.max(this.mostWaiting, waiting);
    if (!this.backedUp) {
      this.backedUp = true;
      this.onBackedUp(true, waiting);
    }
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  private drained(): void {
    for (const waiter of this.waiters.splice(0)) waiter.resolve();
    if (!this.backedUp) return;
    this.backedUp = false;
    const most = this.mostWaiting;
    this.mostWaiting = 0;
    this.onBackedUp(false, most);
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiter of this.waiters.splice(0)) waiter.reject(error);
  }
}

/** The part of the SDK's stdio transport this replaces: its `send` (the SDK's adds two listeners per message while stdout is backed up). */
interface SendingTransport {
  send(message: never, options?: never): Promise<void>;
}

/**
 * Has `transport` send each message through `writer`, serialized as the SDK does (one JSON line), until `isClosed()`
 * (then a send fails, as the SDK's does on a closed transport). Call before anything else wraps `send`.
 */
export function sendThrough(transport: SendingTransport, writer: StdoutWriter, isClosed: () => boolean): void {
  (transport as { send: (message: unknown) => Promise<void> }).send = (message: unknown) =>
    isClosed() ? Promise.reject(new Error('StdioServerTransport is closed')) : writer.write(`${JSON.stringify(message)}\n`);
}
