/**
 * Holding back stdin's end of file until what was read has been answered.
 *
 * The SDK's stdio transport closes itself when its input ends, and closing
 * aborts every request still running: a `tools/call` written just before the
 * host closed stdin would never be answered. The transport therefore reads a
 * copy of stdin whose end is passed on only once every request read so far
 * has had its response written (or `graceMs` has passed, so a hung upstream
 * cannot keep the process alive).
 */
import type { Readable } from 'node:stream';
import { PassThrough } from 'node:stream';

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
}

export function holdStdinEnd(stdin: Readable, graceMs: number): HeldStdin {
  const input = new PassThrough();
  stdin.pipe(input, { end: false });
  // Requests read but not yet answered; `subscriptions/listen` is answered only when the stream ends, so it never holds the end.
  const pending = new Set<string>();
  let settle: (() => void) | undefined;
  const finish = () => {
    settle = undefined;
    input.end();
  };
  const onEnd = () => {
    // After the I/O turn in which stdin ended: the transport has parsed every line piped before the end.
    setImmediate(() => {
      if (pending.size === 0) return finish();
      const timer = setTimeout(finish, graceMs);
      settle = () => {
        clearTimeout(timer);
        finish();
      };
    });
  };
  stdin.once('end', onEnd);
  stdin.once('error', (error) => input.destroy(error));

  return {
    input,
    track(transport) {
      const received = transport.onmessage as ((message: Message, extra?: unknown) => void) | undefined;
      transport.onmessage = (message: Message, extra?: unknown) => {
        if (typeof message.method === 'string') {
          if (message.id !== undefined && message.method !== 'subscriptions/listen') pending.add(keyOf(message.id));
          else if (message.method === 'notifications/cancelled') answered(message.params?.requestId);
        }
        received?.(message, extra);
      };
      const send = transport.send.bind(transport) as (message: Message, options?: unknown) => Promise<void>;
      transport.send = async (message: Message, options?: unknown) => {
        try {
          await send(message, options);
        } finally {
          if (message.method === undefined && message.id !== undefined) answered(message.id);
        }
      };
    },
  };

  function answered(id: unknown): void {
    pending.delete(keyOf(id));
    if (pending.size === 0) settle?.();
  }
}
