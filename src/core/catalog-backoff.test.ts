import { it } from 'node:test';
import assert from 'node:assert/strict';
import { catalogRetryDelayMs } from './catalog-backoff.js';

const all = () => 0.999_999;
const none = () => 0;

it('starts at about half a second and doubles up to 5 s', () => {
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 20, 1_000].map((n) => catalogRetryDelayMs(n, undefined, undefined, all)),
    [500, 1_000, 2_000, 4_000, 5_000, 5_000, 5_000, 5_000],
  );
});

it('jitters each wait between half and all of its step', () => {
  assert.deepEqual(
    [1, 2, 5].map((n) => catalogRetryDelayMs(n, undefined, undefined, none)),
    [250, 500, 2_500],
  );
});

it('never waits less than the server asked (Retry-After), nor more than the cap for it', () => {
  assert.equal(catalogRetryDelayMs(1, 1_000, undefined, none), 1_000);
  assert.equal(catalogRetryDelayMs(1, 60_000, undefined, none), 5_000);
  assert.equal(catalogRetryDelayMs(6, 100, undefined, all), 5_000);
});

it('a refresh period shorter than 5 s is the cap', () => {
  assert.equal(catalogRetryDelayMs(10, undefined, 1_000, all), 1_000);
  assert.equal(catalogRetryDelayMs(10, 30_000, 1_000, all), 1_000);
});
