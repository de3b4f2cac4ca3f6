/**
 * The client going away (its response closed before it was finished), as an AbortSignal made only when something
 * asks for it: a plain tools/list never does, a tools/call does (its upstream call is cancelled with it). An
 * AbortController per request was ~0.4 KB of every request's garbage and a step of its own in the profile
 * (bench/README.md, "Issue 33: the verdict" and issue 39). A signal asked for after the client went away is aborted
 * already.
 */
export class ClientGone {
  private controller: AbortController | undefined;
  private reason: Error | undefined;

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.reason) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** The client went away: aborts the signal (now, or when it is made). Once. */
  abort(reason: Error): void {
    if (this.reason) return;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}
