/**
 * Cancellation of 2025-era calls over stateless HTTP.
 *
 * A 2025-era client cancels a call with `notifications/cancelled` — sent as
 * its own POST, which a fresh, stateless SDK instance receives and drops: it
 * never saw the call. (Clients do not close the call's stream, so the face
 * sees no disconnect either; without this module the upstream call runs on
 * to its deadline.) Calls are registered here by who asked — the signed
 * session id plus the authenticated subject — and their JSON-RPC id, so the
 * notification can abort them wherever they run (fast path or SDK).
 *
 * Bounded: an entry lives exactly as long as its call, and every call holds
 * an HTTP connection (server-limits.ts caps those).
 */

/** A call no cancellation can address: nothing to register, nothing to undo (one object for all of them). */
const UNTRACKED: { signal?: AbortSignal; done: () => void } = Object.freeze({ done: () => undefined });

export class CallCancellations {
  private readonly calls = new Map<string, AbortController>();

  /**
   * Registers a call; returns its signal (aborted by a matching cancellation) and the function to call when it ends.
   * Calls without a session id are not addressable (ids repeat across clients): they get no entry.
   */
  track(sessionId: string | undefined, subject: string | undefined, id: unknown): { signal?: AbortSignal; done: () => void } {
    const key = keyOf(sessionId, subject, id);
    if (key === undefined) return UNTRACKED;
    const controller = new AbortController();
    this.calls.set(key, controller);
    return {
      signal: controller.signal,
      done: () => {
        if (this.calls.get(key) === controller) this.calls.delete(key);
      },
    };
  }

  /** Applies every `notifications/cancelled` in a message or batch; returns how many calls were aborted. */
  cancelFrom(body: unknown, sessionId: string | undefined, subject: string | undefined): number {
    let aborted = 0;
    for (const message of Array.isArray(body) ? body : [body]) {
      const m = message as { method?: unknown; id?: unknown; params?: { requestId?: unknown } } | null;
      if (!m || typeof m !== 'object' || m.method !== 'notifications/cancelled' || m.id !== undefined) continue;
      const key = keyOf(sessionId, subject, m.params?.requestId);
      const controller = key === undefined ? undefined : this.calls.get(key);
      if (controller) {
        this.calls.delete(key!);
        controller.abort(new Error('cancelled by the client'));
        aborted++;
      }
    }
    return aborted;
  }

  get size(): number {
    return this.calls.size;
  }
}

function keyOf(sessionId: string | undefined, subject: string | undefined, id: unknown): string | undefined {
  if (!sessionId || (typeof id !== 'string' && typeof id !== 'number')) return undefined;
  return `${sessionId}\n${subject ?? ''}\n${typeof id}:${id}`;
}
