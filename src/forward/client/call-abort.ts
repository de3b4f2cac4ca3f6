/**
 * The cancellation of one OXP `tools/call` POST (its deadline, the caller going away): an EventEmitter with `aborted`
 * and `reason`, which the call pool (call-pool.ts) listens to and answers by destroying the request. Why not an
 * AbortController: on Node 20 a controller's signal costs ~2 µs to create, and each abort listener ~2 µs to add and
 * remove. An EventEmitter's listeners cost a tenth of that (bench/README.md, "one AbortController fewer per call").
 * The GETs keep an AbortController: node:http's `signal` option takes only an AbortSignal.
 */
import { EventEmitter } from 'node:events';

export class CallAbort extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;

  /** Aborts once, with `reason` (what the request is rejected with); later calls do nothing. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
  }
}
