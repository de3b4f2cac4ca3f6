import { it } from 'node:test';
import assert from 'node:assert/strict';
import { failureReason } from './client.js';

it('describes transport failures in the bridge’s own words, without addresses', () => {
  assert.equal(failureReason({ kind: 'timeout', detail: 'no complete answer within 30000 ms' }), 'timed out after 30 s');
  assert.equal(failureReason({ kind: 'unreachable', detail: 'ECONNREFUSED: connect ECONNREFUSED 10.0.0.5:9000', beforeSend: true }), 'connection refused');
  assert.equal(
    failureReason({ kind: 'unreachable', detail: 'connect timeout: Connect Timeout Error (attempted address: 10.0.0.5:9000)', beforeSend: true }),
    'connect timed out',
  );
  assert.equal(failureReason({ kind: 'unreachable', detail: 'WEIRD: something 10.0.0.5', beforeSend: false }), 'connection failed');
  assert.equal(failureReason({ kind: 'protocol_error', status: 0, detail: 'response larger than 16 bytes' }), 'response larger than 16 bytes');
});
