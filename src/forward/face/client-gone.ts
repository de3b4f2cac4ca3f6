/**
 * The client going away (its response closed before it was finished). A call reads it as a CallSignal
 * (platform/shared/call-signal.ts): this object itself, which makes nothing per request beyond itself. An AbortSignal
 * (`signal`) is made only when something asks for one: the SDK's web Request, a call joined with another abort
 * (AbortSignal.any). An AbortController per request, its signal and a listener were ~1.3 KB of every call's garbage
 * and a step of their own in the profile (bench/README.md, "Issue 33: the verdict" and issue 39). A signal asked for
 * after the client went away is aborted already.
 */
import { AbortSource } from '../../platform/shared/call-signal.js';

export class ClientGone extends AbortSource {
  private controller: AbortController | undefined;

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  protected override onAborted(reason: unknown): void {
    this.controller?.abort(reason);
  }
}
