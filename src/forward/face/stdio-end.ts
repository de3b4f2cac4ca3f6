/**
 * What the stdio transport reads, and when its input ends.
 *
 * The SDK's stdio transport closes itself when its input ends, and closing
 * aborts every request still running: a `tools/call` written just before the
 * host closed stdin would never be answered. The transport therefore reads a
 * copy of stdin whose end is passed on only once every request read so far
 * has had its response written (or `graceMs` has passed, so a hung upstream
 * cannot keep the process alive).
 *
 * The copy is stdio-in.ts's feed, which is also where reading stops: while
 * the host does not read the output (`pause`, told by stdio-out.ts), and for
 * good on an orderly stop (`stop`: what was read is still handed to the
 * transport and answered; stdin is read no more).
 */
import type { Readable } from 'node:stream';
import { StdinFeed } from './stdio-in.js';

/** The part of an MCP transport this needs: messages in, messages out. */
interface MessageTransport {
  onmessage?: ((message: never, extra?: never) => void) | undefined;
  send(message: never, options?: never): Promise<void>;
}

type Message = { method?: unknown; id?: unknown; params?: { requestId?: unknown } };

const keyOf = (id: unknown): string => `${typeof id}:${String(id)}`;

export interface HeldStdin {
  /** What the transport reads instead of stdin. */
  input: Readable;
  /** Counts the transport's requests and responses; call once the transport's handlers are installed. */
  track(transport: MessageTransport): void;
  /** Stops (true) or resumes (false) handing input to the transport: the output is backed up, or no longer. */
  pause(paused: boolean): void;
  /**
   * Reads stdin no more (an orderly stop); what was read is still answered. Resolves once it has been, or after
   * `deadlineMs`, with how many requests are left unanswered.
   */
  stop(deadlineMs: number): Promise<number>;
  /** The transport has closed: stdin is read no more, and nothing waits for it to take what was. */
  transportClosed(): void;
}

export function holdStdinEnd(stdin: Readable, graceMs: number): HeldStdin {
  // Requests read but not yet answered; `subscriptions/listen` is answered only when the stream ends, so it never holds the end.
  const pending = new Set<string>();
  const feed: StdinFeed = new StdinFeed(stdin, () => whenAnswered.check());
  const whenAnswered = answeredWaits(pending, feed);
  // Once every line read before it has been handed over, or the grace has passed: the transport ends (and closes).
  stdin.once('end', () => void whenAnswered(graceMs).then(() => feed.finish()));

  return {
    input: feed.input,
    track(transport) {
      const received = transport.onmessage as ((message: Message, extra?: unknown) => void) | undefined;
      transport.onmessage = (message: Message, extra?: unknown) => {
        if (typeof message.method === 'string') {
          if (message.id !== undefined && message.method !== 'subscriptions/listen') pending.add(keyOf(message.id));
          else if (message.method === 'notifications/cancelled') whenAnswered.answered(message.params?.requestId);
        }
        received?.(message, extra);
      };
      const send = transport.send.bind(transport) as (message: Message, options?: unknown) => Promise<void>;
      transport.send = async (message: Message, options?: unknown) => {
        try {
          await send(message, options);
        } finally {
          if (message.method === undefined && message.id !== undefined) whenAnswered.answered(message.id);
        }
      };
    },
    pause: (paused) => feed.pause(paused),
    stop(deadlineMs) {
      feed.stop();
      return whenAnswered(deadlineMs);
    },
    transportClosed() {
      feed.finish();
      whenAnswered.check();
    },
  };
}

/**
 * Waits until every request read is answered and the feed holds nothing more for the transport (or the deadline
 * passes); resolves with the requests left. `answered(id)` counts a response; `check` looks again.
 */
function answeredWaits(pending: Set<string>, feed: StdinFeed) {
  const waiters = new Set<() => void>();
  const settled = () => pending.size === 0 && feed.idle;
  const check = () => {
    if (settled()) for (const wake of [...waiters]) wake();
  };
  const wait = (deadlineMs: number): Promise<number> =>
    new Promise((resolve) => {
      // After this turn: a line handed over in it has been parsed, and its request counted.
      setImmediate(() => {
        if (settled()) return resolve(0);
        const wake = () => {
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(pending.size);
        };
        const timer = setTimeout(wake, deadlineMs);
        waiters.add(wake);
      });
    });
  return Object.assign(wait, {
    check,
    answered(id: unknown): void {
      pending.delete(keyOf(id));
      check();
    },
  });
}
