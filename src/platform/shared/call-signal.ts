/**
 * The part of an AbortSignal a call's steps read: whether it was aborted, why, and one listener for the moment it
 * is. An AbortSignal is one; so are the face's ClientGone (forward/face/client-gone.ts) and the OXP POST's CallAbort
 * (forward/client/call-abort.ts), which make no AbortController for a call that is never cancelled — a controller,
 * its signal and a listener were ~1.3 KB of every call's garbage (bench/README.md, issue 39). What needs a real
 * AbortSignal (AbortSignal.any, a web Request, node:http's `signal`) asks for one where it is made.
 */
export interface CallSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  /** `listener` once the signal aborts (never when it had already aborted: check `aborted` first). */
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * A CallSignal and the means to abort it, in a few fields: the first listener in a field of its own (a call has one:
 * its OXP POST's), any more in a list made when there are. Aborts once; listeners run then, synchronously, as an
 * AbortSignal's do.
 */
export class AbortSource implements CallSignal {
  aborted = false;
  reason: unknown = undefined;
  private listener: (() => void) | undefined;
  private more: Array<() => void> | undefined;

  /** `listener` once, when this aborts; one added after that never runs (read `aborted` first). */
  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.aborted) return;
    if (!this.listener) this.listener = listener;
    else (this.more ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    if (this.listener === listener) this.listener = undefined;
    else if (this.more) {
      const at = this.more.indexOf(listener);
      if (at >= 0) this.more.splice(at, 1);
    }
  }

  /** Aborts once, with `reason`, and tells the listeners; later calls do nothing. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.onAborted(reason);
    const { listener, more } = this;
    this.listener = this.more = undefined;
    listener?.();
    if (more) for (const each of more) each();
  }

  /** What a subclass does first when this aborts (ClientGone: its AbortSignal, if one was made). */
  protected onAborted(_reason: unknown): void {}
}
