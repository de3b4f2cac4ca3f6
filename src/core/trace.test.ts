import { it } from 'node:test';
import assert from 'node:assert/strict';
import { traceIdFromTraceparent } from './trace.js';

it('extracts the W3C trace id and rejects invalid headers', () => {
  assert.equal(traceIdFromTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'), '4bf92f3577b34da6a3ce929d0e0e4736');
  for (const bad of [
    undefined,
    42,
    '',
    '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
    'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    'garbage',
  ]) {
    assert.equal(traceIdFromTraceparent(bad), undefined);
  }
});

it('takes the traceparent header before _meta.traceparent, and a valid one before an invalid one', async () => {
  const { pickTraceparent } = await import('./trace.js');
  const header = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
  const meta = '00-11111111111111111111111111111111-2222222222222222-01';
  assert.equal(pickTraceparent(header, meta), header);
  assert.equal(pickTraceparent(undefined, meta), meta);
  assert.equal(pickTraceparent('garbage', meta), meta);
  assert.equal(pickTraceparent(`${header}, ${header}`, meta), meta);
  assert.equal(pickTraceparent(undefined, 42), undefined);
});
