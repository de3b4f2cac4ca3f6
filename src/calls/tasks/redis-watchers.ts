/**
 * The Redis task store's watchers (store.ts, "Waking"): woken through one subscription per replica to the store's
 * change channel, and by a timer at the task's expiry (Redis expires the key; nobody is told).
 */
import type { Redis } from 'ioredis';
import type { TaskRecord, TaskWatcher } from './store.js';

/** Reads a record, resolving null when Redis did not answer. */
type Read = (taskId: string) => Promise<TaskRecord | undefined | null>;

export class RedisWatchers {
  private readonly watchers = new Map<string, { set: Set<TaskWatcher>; expiry?: NodeJS.Timeout }>();
  private subscriber: Redis | undefined;

  constructor(private readonly read: Read) {}

  /**
   * One subscription per replica: every change any replica makes wakes this one's watchers of that task. Made at
   * each connection here rather than by ioredis's autoResubscribe, whose SUBSCRIBE nobody awaits: a connection lost
   * before Redis answered it would reject it unhandled, which ends the process (test/hostile/redis-resubscribe.test.ts).
   */
  subscribe(client: Redis, channel: string): void {
    const subscriber = (this.subscriber = client.duplicate({ enableOfflineQueue: true, autoResubscribe: false }));
    subscriber.on('error', () => {});
    subscriber.on('message', (_channel: string, taskId: string) => void this.wake(taskId));
    subscriber.on('ready', () => void subscriber.subscribe(channel).catch(() => undefined));
  }

  watch(taskId: string, watcher: TaskWatcher): () => void {
    let entry = this.watchers.get(taskId);
    if (!entry) {
      this.watchers.set(taskId, (entry = { set: new Set() }));
      void this.armExpiry(taskId);
    }
    entry.set.add(watcher);
    return () => {
      const current = this.watchers.get(taskId);
      current?.set.delete(watcher);
      if (current?.set.size === 0) {
        clearTimeout(current.expiry);
        this.watchers.delete(taskId);
      }
    };
  }

  close(): void {
    for (const entry of this.watchers.values()) clearTimeout(entry.expiry);
    this.watchers.clear();
    this.subscriber?.disconnect();
  }

  private async wake(taskId: string): Promise<void> {
    const entry = this.watchers.get(taskId);
    if (!entry) return;
    const record = await this.read(taskId);
    if (record === null) return; // Redis did not answer: the next change or the expiry timer wakes them.
    for (const watcher of [...entry.set]) watcher(record);
  }

  /** Wakes the task's watchers with `undefined` once Redis has expired it (checked at its expiry, then retried briefly). */
  private async armExpiry(taskId: string, attempt = 0): Promise<void> {
    const record = await this.read(taskId);
    const entry = this.watchers.get(taskId);
    if (!entry || record === null) return;
    if (record === undefined) {
      for (const watcher of [...entry.set]) watcher(undefined);
      return;
    }
    const wait = attempt === 0 ? Math.max(0, record.createdAt + record.ttlMs - Date.now()) : 100 * attempt;
    clearTimeout(entry.expiry);
    entry.expiry = setTimeout(() => void this.armExpiry(taskId, Math.min(attempt + 1, 50)), wait).unref();
  }
}
