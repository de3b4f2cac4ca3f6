/**
 * Task creations this replica refused after sending them to Redis, until Redis confirms that none of them exists.
 *
 * A creation that got no answer within commandTimeoutMs is answered as refused (`task_store_unavailable`), but Redis
 * may have received it: frozen, it runs it when it resumes. The creation's deadline (redis-clock.ts) makes Redis
 * refuse it when that is later than this replica's answer; one that ran in time, whose answer was late, is removed
 * here (redis-scripts.ts FORGET_LUA) before anyone runs it. The removal is sent at once — on the same connection,
 * behind the creation, so Redis runs it after the creation whatever happens — and again until Redis answers it, for
 * as long as the task could exist.
 */

/** Refused creations remembered at most: past this, the oldest are dropped (their tasks expire by their ttl). */
const MAX_PENDING = 10_000;
/** How often removals that got no answer are tried again. */
export const RETRY_MS = 1_000;

export interface RefusedCreation {
  readonly taskId: string;
  readonly owner: string;
  /** Local epoch ms after which the task, had it been made, has expired: nothing left to remove. */
  readonly until: number;
}

export class RefusedCreations {
  private readonly pending = new Map<string, RefusedCreation>();
  private timer: NodeJS.Timeout | undefined;

  /** `forget` asks Redis to remove one (resolves once Redis answered, rejects when it did not). */
  constructor(private readonly forget: (refused: RefusedCreation) => Promise<void>) {}

  get size(): number {
    return this.pending.size;
  }

  /** A creation was refused after it was sent: its removal is sent now, and again until answered. */
  add(refused: RefusedCreation): void {
    if (this.pending.size >= MAX_PENDING) {
      const oldest = this.pending.keys().next().value;
      if (oldest !== undefined) this.pending.delete(oldest);
    }
    this.pending.set(refused.taskId, refused);
    void this.attempt(refused);
    this.arm();
  }

  /** Tries every removal still pending (the connection is back, or the retry timer fired). */
  async flush(): Promise<void> {
    await Promise.all([...this.pending.values()].map((refused) => this.attempt(refused)));
  }

  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async attempt(refused: RefusedCreation): Promise<void> {
    if (Date.now() > refused.until) {
      this.pending.delete(refused.taskId);
      return;
    }
    try {
      await this.forget(refused);
      this.pending.delete(refused.taskId);
    } catch {
      // Redis did not answer: tried again at the next flush.
    }
  }

  private arm(): void {
    if (this.timer || this.pending.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush().then(() => this.arm());
    }, RETRY_MS);
    this.timer.unref();
  }
}
