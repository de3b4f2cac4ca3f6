/**
 * Whether the shared task store answers, as this replica last found it: every Redis round trip reports how it went,
 * and a change is told once to whoever listens (the command logs it, the metric and `/readyz` read it, docs/production.md
 * "When Redis or a replica fails"). While it does not answer, new tasks are refused and tasks are answered from what
 * this replica holds (held-locally.ts).
 */

export interface TaskStoreState {
  /** False from the first round trip that failed to the first that succeeded. */
  readonly available: boolean;
  /** Epoch ms of the last change. */
  readonly since: number;
  /** Why it does not answer (the store's words: where Redis is, never its credentials). */
  readonly reason?: string;
}

export type TaskStoreStateListener = (state: TaskStoreState) => void;

export class StoreStateTracker {
  private current: TaskStoreState = { available: true, since: Date.now() };
  private readonly listeners = new Set<TaskStoreStateListener>();

  get state(): TaskStoreState {
    return this.current;
  }

  /** A round trip answered. */
  up(): void {
    if (!this.current.available) this.set({ available: true, since: Date.now() });
  }

  /** A round trip failed for want of Redis (not connected, no answer in time). */
  down(reason: string): void {
    if (this.current.available) this.set({ available: false, since: Date.now(), reason });
  }

  onChange(listener: TaskStoreStateListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private set(state: TaskStoreState): void {
    this.current = state;
    for (const listener of [...this.listeners]) listener(state);
  }
}
