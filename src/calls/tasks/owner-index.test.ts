import { it } from 'node:test';
import assert from 'node:assert/strict';
import { newerFirst, type ListPosition } from './list-cursor.js';
import { OwnerIndex } from './owner-index.js';

const at = (createdAt: number, taskId: string): ListPosition => ({ createdAt, taskId });

it('pages newest first through positions added in any order, ties by task id, as list-cursor.ts orders them', () => {
  const index = new OwnerIndex();
  const all = [at(5, 'e'), at(1, 'a'), at(3, 'c'), at(3, 'd'), at(9, 'z'), at(3, 'b')];
  for (const p of all) index.add(p);
  const expected = [...all].sort(newerFirst).map((p) => p.taskId);
  const seen: string[] = [];
  let after: ListPosition | undefined;
  for (;;) {
    const page = index.page(after, 2);
    seen.push(...page.positions.map((p) => p.taskId));
    if (!page.more) break;
    after = page.positions.at(-1);
  }
  assert.deepEqual(seen, expected);
});

it('a cursor whose task is gone still pages from its place; deleting keeps the order', () => {
  const index = new OwnerIndex();
  for (let i = 0; i < 10; i++) index.add(at(i, `t${i}`));
  index.delete(at(5, 't5'));
  assert.equal(index.size, 9);
  assert.deepEqual(
    index.page(at(5, 't5'), 3).positions.map((p) => p.taskId),
    ['t4', 't3', 't2'],
  );
  assert.deepEqual(
    index.page(at(6, 't6'), 2).positions.map((p) => p.taskId),
    ['t4', 't3'],
  );
  index.delete(at(5, 'nope'));
  assert.equal(index.size, 9);
});
