import { it } from 'node:test';
import assert from 'node:assert/strict';
import { CallCancellations } from './cancellations.js';

it('a notifications/cancelled aborts the call of the same session, subject and id only', () => {
  const calls = new CallCancellations();
  const mine = calls.track('s1', 'alice', 7);
  const other = calls.track('s2', 'alice', 7);
  const numeric = calls.track('s1', 'alice', '7');
  const cancel = (id: unknown) => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } });
  assert.equal(calls.cancelFrom(cancel(7), 's1', 'mallory'), 0, 'another subject');
  assert.equal(calls.cancelFrom({ ...cancel(7), id: 1 }, 's1', 'alice'), 0, 'a request, not a notification');
  assert.equal(calls.cancelFrom([cancel(8), cancel(7)], 's1', 'alice'), 1, 'found inside a batch');
  assert.ok(mine.signal?.aborted && !other.signal?.aborted && !numeric.signal?.aborted);
  other.done();
  numeric.done();
  mine.done();
  assert.equal(calls.size, 0);
});

it('calls without a session id are not tracked', () => {
  const calls = new CallCancellations();
  const untracked = calls.track(undefined, undefined, 1);
  assert.equal(untracked.signal, undefined);
  untracked.done();
  assert.equal(calls.size, 0);
});
