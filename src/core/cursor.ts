/**
 * Opaque `tools/list` cursors: keyset pagination over the catalog's sorted
 * names, so a catalog refresh between two pages neither repeats nor skips a
 * tool that exists in both.
 */
import { isPlainObject, tryParseJson } from './json.js';

interface CursorPayload {
  /** The last name the previous page returned. */
  after: string;
}

export function encodeCursor(after: string): string {
  return toBase64Url(JSON.stringify({ after } satisfies CursorPayload));
}

/** The name to continue after, or undefined for a cursor this bridge did not mint. */
export function decodeCursor(cursor: string): string | undefined {
  if (cursor.length === 0 || cursor.length > 512 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const payload = tryParseJson(fromBase64Url(cursor));
  return isPlainObject(payload) && typeof payload.after === 'string' ? payload.after : undefined;
}

/**
 * One page of `sortedNames`-ordered items: those strictly after `after`
 * (all when undefined), at most `pageSize`; `next` is set when more remain.
 */
export function pageAfter<T>(items: readonly T[], nameOf: (item: T) => string, after: string | undefined, pageSize: number): { page: T[]; next?: string } {
  let start = 0;
  if (after !== undefined) {
    let lo = 0;
    let hi = items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (nameOf(items[mid]!) <= after) lo = mid + 1;
      else hi = mid;
    }
    start = lo;
  }
  const page = items.slice(start, start + pageSize);
  const last = page[page.length - 1];
  return start + pageSize < items.length && last !== undefined ? { page, next: encodeCursor(nameOf(last)) } : { page };
}

function toBase64Url(text: string): string {
  return btoa(String.fromCharCode(...new TextEncoder().encode(text)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

function fromBase64Url(text: string): string {
  try {
    const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
    return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    return '';
  }
}
