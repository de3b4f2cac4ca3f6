import type { CallSignal } from './call-signal.js';

/**
 * `work`, or a rejection with `reason` as soon as `signal` aborts (already aborted: at once). The work itself is
 * left to settle, unobserved: the caller gives up waiting, it does not cancel.
 */
export function untilAborted<T>(work: Promise<T>, signal: CallSignal | undefined, reason: string): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(new Error(reason));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error(reason));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
