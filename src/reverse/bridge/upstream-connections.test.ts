import assert from 'node:assert/strict';
import { it } from 'node:test';
import { failureLogLevel, STILL_DOWN_WARN_MS } from './upstream-connections.js';

it('a failed connection attempt: the first of an outage at warn, repeats at debug, warn again once per STILL_DOWN_WARN_MS', () => {
  const t0 = 1_000_000;
  assert.equal(failureLogLevel(1, undefined, t0), 'warn');
  assert.equal(failureLogLevel(2, t0, t0 + 5_000), 'debug');
  assert.equal(failureLogLevel(40, t0, t0 + STILL_DOWN_WARN_MS - 1), 'debug');
  assert.equal(failureLogLevel(41, t0, t0 + STILL_DOWN_WARN_MS), 'warn');
  // A new outage (the counter starts again after a connection) is said at warn whatever was said before.
  assert.equal(failureLogLevel(1, t0, t0 + 1), 'warn');
});
