import { it } from 'node:test';
import assert from 'node:assert/strict';
import { effectiveRevision, eraOfClaim, MCP_REVISIONS, newestRevision, profileFor, registerRevisionForTest, revisionsOfEra } from './mcp-versions.js';

it('holds each revision once, oldest first, each with its era and tasks flavour', () => {
  assert.deepEqual([...MCP_REVISIONS], [...MCP_REVISIONS].sort());
  assert.equal(new Set(MCP_REVISIONS).size, MCP_REVISIONS.length);
  assert.deepEqual(revisionsOfEra('modern'), ['2026-07-28']);
  assert.deepEqual(
    MCP_REVISIONS.map((v) => profileFor(v).tasks),
    ['none', 'none', 'none', 'core', 'extension'],
  );
  assert.equal(newestRevision(), '2026-07-28');
});

it('reads an unknown claim by date, within its era: never a revision newer than the one claimed', () => {
  assert.equal(eraOfClaim('2026-07-28'), 'modern');
  assert.equal(eraOfClaim('2027-01-01'), 'modern');
  assert.equal(eraOfClaim('2025-12-01'), 'legacy');
  assert.equal(effectiveRevision('2024-10-07'), '2024-11-05', 'older than the oldest: the oldest');
  assert.equal(effectiveRevision('2025-07-01'), '2025-06-18');
  assert.equal(effectiveRevision('2026-01-15'), '2025-11-25', 'a legacy date after the last legacy revision');
  assert.equal(effectiveRevision('2027-01-01'), '2026-07-28', 'a modern date: the newest modern revision not after it');
});

it('registers a revision for a test only after the newest, and only once', () => {
  assert.throws(() => registerRevisionForTest('2025-11-25', '2026-07-28'), /known already/);
  assert.throws(() => registerRevisionForTest('2026-01-01', '2026-07-28'), /comes after/);
  const added = registerRevisionForTest('2099-01-01', '2025-11-25');
  assert.equal(newestRevision(), added);
  assert.deepEqual({ ...profileFor(added), revision: '2025-11-25' }, profileFor('2025-11-25'));
  assert.throws(() => registerRevisionForTest('2099-01-01', '2025-11-25'), /known already/);
});
