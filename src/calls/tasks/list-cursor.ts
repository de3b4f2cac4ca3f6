/**
 * The `tasks/list` cursor, shared by every task store so a cursor means the
 * same on any replica: the position (creation time, task id) of the last
 * task of a page, newest first. Keyset-based, so tasks created or expired
 * between pages neither repeat nor shift the rest. It names one of the
 * caller's own task ids and nothing else; the caller already knows it.
 */

export interface ListPosition {
  readonly createdAt: number;
  readonly taskId: string;
}

/** Newest first; equal times by task id, so the order is total. */
export function newerFirst(a: ListPosition, b: ListPosition): number {
  if (a.createdAt !== b.createdAt) return b.createdAt - a.createdAt;
  return a.taskId < b.taskId ? 1 : a.taskId > b.taskId ? -1 : 0;
}

export function encodeListCursor(at: ListPosition): string {
  return Buffer.from(`${at.createdAt}:${at.taskId}`).toString('base64url');
}

/** The position, or null for anything no store made (the face answers -32602). */
export function decodeListCursor(cursor: string): ListPosition | null {
  if (cursor.length === 0 || cursor.length > 200 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  const text = Buffer.from(cursor, 'base64url').toString();
  const match = /^(\d{1,16}):([A-Za-z0-9_-]{1,128})$/.exec(text);
  if (!match?.[1] || !match[2]) return null;
  return { createdAt: Number(match[1]), taskId: match[2] };
}

/**
 * One `tasks/list` page of `records` (the owner's, in any order): newest first, at most `limit`, after the position
 * `cursor` names, with the cursor of the next page when there is one; 'bad_cursor' for a cursor no store made.
 * Every task store pages through this one function, so a cursor means the same on every replica.
 */
export function pageOf<T extends ListPosition>(records: T[], cursor: string | undefined, limit: number): { tasks: T[]; nextCursor?: string } | 'bad_cursor' {
  const after = cursor === undefined ? undefined : decodeListCursor(cursor);
  if (after === null) return 'bad_cursor';
  const owned = records.sort(newerFirst);
  const start = after ? owned.findIndex((r) => newerFirst(r, after) > 0) : 0;
  const page = start < 0 ? [] : owned.slice(start, start + Math.max(1, limit));
  const last = page[page.length - 1];
  const more = start >= 0 && start + page.length < owned.length;
  return more && last ? { tasks: page, nextCursor: encodeListCursor(last) } : { tasks: page };
}
