/**
 * Work in progress, counted, for graceful shutdown: the bridge's tool calls
 * (stdio), the MCP face's requests and a limited server's requests each
 * count theirs here, and shutdown waits for the count to reach zero, up to a
 * deadline.
 */
export class InFlight {
  private count = 0;
  private waiters: (() => void)[] = [];

  get size(): number {
    return this.count;
  }

  enter(): void {
    this.count += 1;
  }

  leave(): void {
    if (--this.count === 0) for (const wake of this.waiters.splice(0)) wake();
  }

  /** Resolves when nothing is in flight, or after `deadlineMs`; with how many are left. */
  idle(deadlineMs: number): Promise<number> {
    if (this.count === 0) return Promise.resolve(0);
    return new Promise<number>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== done);
        resolve(this.count);
      };
      const timer = setTimeout(done, deadlineMs);
      this.waiters.push(done);
    });
  }
}
