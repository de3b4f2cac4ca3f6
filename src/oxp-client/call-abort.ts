/**
 * The cancellation of one OXP `tools/call` POST, as undici takes it: an
 * EventEmitter with `aborted` and `reason` (undici's `signal` option is
 * documented as "AbortSignal | EventEmitter"). Why not an AbortController: on
 * Node 20 a controller's signal costs ~2 µs to create, and each abort listener
 * ~2 µs to add and remove; undici adds two per request. An EventEmitter's
 * listeners cost a tenth of that (bench/README.md, "one AbortController fewer per call").
 * The GETs keep an AbortController: node:http takes only an AbortSignal.
 */
import { EventEmitter } from 'node:events';

export class CallAbort extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;

  /** Aborts once, with `reason` (what undici rejects the request with); later calls do nothing. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
  }
}
