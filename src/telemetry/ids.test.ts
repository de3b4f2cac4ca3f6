/** The pooled trace and span ids: W3C form, distinct across pool refills, never all zero. */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { randomFillSync } from 'node:crypto';
import { PooledIdGenerator } from './ids.js';

it('gives 32- and 16-character lowercase hex ids, distinct across many pool refills', () => {
  const ids = new PooledIdGenerator();
  const seen = new Set<string>();
  for (let i = 0; i < 20_000; i++) {
    const trace = ids.generateTraceId();
    const span = ids.generateSpanId();
    assert.match(trace, /^[0-9a-f]{32}$/);
    assert.match(span, /^[0-9a-f]{16}$/);
    seen.add(trace).add(span);
  }
  assert.equal(seen.size, 40_000); // 20,000 × 48 hex characters: ~117 refills of the 8,192-character pool
});

it('never gives an all-zero id: it draws again', () => {
  let fills = 0;
  // The first two pools are all zeros, as a broken or hostile source might give.
  const ids = new PooledIdGenerator((bytes) => (++fills <= 2 ? bytes.fill(0) : randomFillSync(bytes)));
  const id = ids.generateTraceId();
  assert.match(id, /^[0-9a-f]{32}$/);
  assert.notEqual(id, '0'.repeat(32));
  assert.equal(fills, 3);
  assert.notEqual(ids.generateSpanId(), '0'.repeat(16));
});
