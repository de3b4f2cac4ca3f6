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

/** The position, or null for anything no store made (the front answers -32602). */
export function decodeListCursor(cursor: string): ListPosition | null {
  if (cursor.length === 0 || cursor.length > 200 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  const text = Buffer.from(cursor, 'base64url').toString();
  const match = /^(\d{1,16}):([A-Za-z0-9_-]{1,128})$/.exec(text);
  if (!match?.[1] || !match[2]) return null;
  return { createdAt: Number(match[1]), taskId: match[2] };
}
