import { it } from 'node:test';
import assert from 'node:assert/strict';
import { traceIdFromTraceparent } from './trace.js';

it('extracts the W3C trace id and rejects invalid headers', () => {
  assert.equal(traceIdFromTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'), '4bf92f3577b34da6a3ce929d0e0e4736');
  for (const bad of [undefined, 42, '', '00-00000000000000000000000000000000-00f067aa0ba902b7-01', 'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', 'garbage']) {
    assert.equal(traceIdFromTraceparent(bad), undefined);
  }
});
