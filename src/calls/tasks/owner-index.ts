/**
 * One owner's tasks in the memory store, in the order `tasks/list` pages them (list-cursor.ts): kept sorted, so a page
 * is a binary search and a slice, never a sort or a walk of everything the owner holds (issue 41; the Redis store's
 * owner index is the same idea in a sorted set, redis-scripts.ts).
 */
import { newerFirst, type ListPosition } from './list-cursor.js';

export class OwnerIndex {
  /** Oldest first: a new task (the usual case) is appended. */
  private readonly positions: ListPosition[] = [];

  get size(): number {
    return this.positions.length;
  }

  add(at: ListPosition): void {
    const i = this.firstNewerThan(at);
    this.positions.splice(i, 0, at);
  }

  delete(at: ListPosition): void {
    const i = this.firstNewerThan(at) - 1;
    if (i >= 0 && newerFirst(this.positions[i]!, at) === 0) this.positions.splice(i, 1);
  }

  /** Up to `limit` positions, newest first, after `cursor` (older than it), and whether older ones remain. */
  page(after: ListPosition | undefined, limit: number): { positions: ListPosition[]; more: boolean } {
    const end = after ? this.firstNewerThan(after) - (this.at(after) ? 1 : 0) : this.positions.length;
    const start = Math.max(0, end - limit);
    return { positions: this.positions.slice(start, end).reverse(), more: start > 0 };
  }

  /** Every position, oldest first (a bound's refusal, which needs them all; not a page). */
  all(): readonly ListPosition[] {
    return this.positions;
  }

  private at(p: ListPosition): boolean {
    const i = this.firstNewerThan(p) - 1;
    return i >= 0 && newerFirst(this.positions[i]!, p) === 0;
  }

  /** The index of the first position newer than `p` (positions before it are `p` or older). */
  private firstNewerThan(p: ListPosition): number {
    let lo = 0;
    let hi = this.positions.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      // newerFirst(a, b) > 0 when a is older than b: keep going right while positions[mid] is p or older.
      if (newerFirst(this.positions[mid]!, p) >= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
