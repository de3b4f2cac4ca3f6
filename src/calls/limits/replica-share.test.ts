import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { shareOf } from './replica-share.js';

describe('shareOf', () => {
  it('divides the rate exactly and rounds the burst and the in-flight cap up, at least one each', () => {
    assert.deepEqual(shareOf({ requestsPerMinute: 5, burst: 5, maxInFlight: 4 }, 3), { requestsPerMinute: 5 / 3, burst: 2, maxInFlight: 2 });
    assert.deepEqual(shareOf({ requestsPerMinute: 60, burst: 1, maxInFlight: 1 }, 4), { requestsPerMinute: 15, burst: 1, maxInFlight: 1 });
  });
  it('leaves what limits nothing unlimited, and a single replica the whole limit', () => {
    assert.deepEqual(shareOf({ requestsPerMinute: 0, burst: 0, maxInFlight: 0 }, 3), { requestsPerMinute: 0, burst: 0, maxInFlight: 0 });
    const spec = { requestsPerMinute: 5, burst: 5, maxInFlight: 1 };
    assert.equal(shareOf(spec, 1), spec);
  });
});
