/**
 * The cancellation of one OXP `tools/call` POST (its deadline, the caller going away): a CallSignal with its abort
 * (platform/shared/call-signal.ts, `AbortSource`: `aborted`, `reason`, a listener in a field), which the call pool
 * (call-pool.ts) listens to and answers by aborting the request at undici. Until issue 39 an EventEmitter.
 *
 * An owned copy of the part of AbortController the pool uses (docs/design.md, "Owned copies of library code"). On
 * Node 20 a controller, its signal and an abort listener cost far more than an EventEmitter and its listener (and that
 * more than a listener in a field), in the
 * step and in the garbage every call leaves: a build with an AbortController per POST costs more instructions per
 * call (`npm run bench:receipts -- call-abort`, and the step alone in bench/receipts/steps.ts; the figures:
 * bench/README.md#owned-copies-receipts-issue-31). What holds it to the library: `aborted` and `reason` mean what
 * they mean on an AbortSignal, and the call's deadline and the client going away abort the upstream call as before
 * (test/integration/upstream.test.ts, a call past its deadline; test/integration/resilience.test.ts, the request
 * stream closed). Delete it when an AbortController with one listener costs within ~2 % of a call. The GETs keep an
 * AbortController: node:http's `signal` option takes only an AbortSignal.
 */
import { AbortSource, type CallSignal } from '../../platform/shared/call-signal.js';

/**
 * One POST's abort: fired by its deadline (its own timer) or by the caller's signal (its listener), and stopped, both
 * of them, by `done` once the POST is over. The timer and the listener are the exchange's own (client.ts), kept here
 * so that the exchange needs no async frame and no closures of its own per call (bench/README.md, issue 39).
 */
export class CallAbort extends AbortSource {
  /** The deadline passed before the POST was over: a failure then is a timeout. */
  deadlinePassed = false;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly onCallerAbort: (() => void) | undefined;

  /** With no `timeoutMs`, no deadline (bench/receipts/steps.ts); with a `caller`, aborted when it is. */
  constructor(
    readonly timeoutMs?: number,
    readonly caller?: CallSignal,
  ) {
    super();
    if (timeoutMs !== undefined) this.timer = setTimeout(expire, timeoutMs, this).unref();
    if (caller?.aborted) this.abort(caller.reason);
    // An abort fires once: the listener needs no `once`, and goes in `done`.
    else if (caller) caller.addEventListener('abort', (this.onCallerAbort = () => this.abort(caller.reason)));
  }

  /** The POST is over: the deadline no longer applies, the caller's signal is no longer listened to. */
  done(): void {
    clearTimeout(this.timer);
    if (this.onCallerAbort) this.caller!.removeEventListener('abort', this.onCallerAbort);
  }
}

function expire(abort: CallAbort): void {
  abort.deadlinePassed = true;
  abort.abort(new DOMException(`no complete answer within ${abort.timeoutMs} ms`, 'TimeoutError'));
}
