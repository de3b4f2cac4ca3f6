/** The Redis task store's keys under its prefix (the layout: redis-scripts.ts). */
import { createHash } from 'node:crypto';

export class TaskKeys {
  /** Each task's hash is this and its id. */
  readonly task: string;
  readonly all: string;
  readonly leases: string;
  readonly channel: string;
  readonly clock: string;
  private readonly owner: string;

  constructor(prefix: string) {
    this.task = `${prefix}task:`;
    this.all = `${prefix}tasks:all`;
    this.leases = `${prefix}tasks:leases`;
    this.owner = `${prefix}tasks:owner:`;
    this.channel = `${prefix}tasks:changed`;
    this.clock = `${prefix}tasks:clock`;
  }

  taskKey(taskId: string): string {
    return `${this.task}${taskId}`;
  }

  /** The owner's two indexes (by creation, by expiry). The owner key is opaque and may be long: they are named by a hash of it. */
  ownerKeys(owner: string): [string, string] {
    const index = `${this.owner}${createHash('sha256').update(owner).digest('base64url')}`;
    return [index, `${index}:exp`];
  }
}
