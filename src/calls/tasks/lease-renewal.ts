/**
 * The renewal of every lease one replica holds (lifecycle.ts): one store step for all of them every third of a
 * lease, never one timer or one round trip per task (issue 41: 10,000 running tasks are 20 scripts every 10 s with
 * the default lease, not 1,000 a second). A renewal still running when the next is due is not doubled.
 */
import type { HeartbeatOutcome, TaskStore } from './store.js';

export class LeaseRenewal {
  private timer: NodeJS.Timeout | undefined;
  private renewing = false;

  /**
   * `held`: the ids of the tasks this replica runs now; `told`: a task whose renewal answered `lost` (another replica
   * holds it) or `ended` (cancelled or expired).
   */
  constructor(
    private readonly store: TaskStore,
    private readonly holder: string,
    private readonly leaseMs: number,
    private readonly held: () => string[],
    private readonly told: (taskId: string, state: Exclude<HeartbeatOutcome, 'held'>) => void,
  ) {}

  /** Renewals start with the first task this replica runs… */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.renewAll(), Math.max(50, Math.floor(this.leaseMs / 3)));
    this.timer.unref();
  }

  /** …and stop when it runs none. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async renewAll(): Promise<void> {
    const ids = this.held();
    if (this.renewing || ids.length === 0) return;
    this.renewing = true;
    try {
      // A store that does not answer: nothing is told, the work goes on (held-locally.ts answers 'held' meanwhile).
      const states = await this.store.renew(ids, this.holder, this.leaseMs).catch(() => []);
      states.forEach((state, i) => {
        if (state !== 'held') this.told(ids[i]!, state);
      });
    } finally {
      this.renewing = false;
    }
  }
}
