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
import { AbortSource } from '../../platform/shared/call-signal.js';

export class CallAbort extends AbortSource {}
