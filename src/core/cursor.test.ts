import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeCursor, encodeCursor, pageAfter } from './cursor.js';

describe('cursor', () => {
  it('round-trips and rejects what it did not mint', () => {
    assert.equal(decodeCursor(encodeCursor('Tool_9')), 'Tool_9');
    for (const bad of ['', 'not base64!', 'e30', 'x'.repeat(600), encodeCursor('a').slice(0, 5)]) assert.equal(decodeCursor(bad), undefined, bad);
  });
  it('pages keyset-style without gaps or repeats, even when the list changes between pages', () => {
    const names = Array.from({ length: 25 }, (_, i) => `t${String(i).padStart(2, '0')}`);
    const p1 = pageAfter(names, (n) => n, undefined, 10);
    assert.equal(p1.page.length, 10);
    const after = decodeCursor(p1.next!);
    // a tool inserted before the cursor and one removed after it
    const changed = ['t00a', ...names.filter((n) => n !== 't12')].sort();
    const p2 = pageAfter(changed, (n) => n, after, 10);
    assert.equal(p2.page[0], 't10');
    assert.ok(!p2.page.includes('t12'));
    const p3 = pageAfter(changed, (n) => n, decodeCursor(p2.next!), 10);
    assert.equal(p3.next, undefined);
    assert.equal(new Set([...p1.page, ...p2.page, ...p3.page]).size, 24);
  });
});
