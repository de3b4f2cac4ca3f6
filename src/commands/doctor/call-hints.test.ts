import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ERROR_META_KEY } from '../../core/mcp-wire.js';
import { callFailureHint } from './call-hints.js';
import { CREDENTIALS_HINT } from './credentials.js';

const meta = (kind: string) => ({ [ERROR_META_KEY]: { kind } });

it("reads a result's error kind as the outcome it tells of (core/call-outcomes.ts), and gives that outcome's hint", () => {
  // The `_meta` kinds a client reads for upstream failures are not the outcomes' own words.
  assert.match(callFailureHint(meta('upstream_unavailable')), /said it is unavailable/);
  assert.match(callFailureHint(meta('upstream_timeout')), /upstream\.callTimeoutMs/);
  assert.match(callFailureHint(meta('upstream_unreachable')), /could not reach/);
  assert.match(callFailureHint(meta('upstream_protocol_error')), /not OXP/);
  assert.equal(callFailureHint(meta('upstream_auth_failed')), CREDENTIALS_HINT);
  // Where they are the same word.
  assert.match(callFailureHint(meta('invalid_input')), /--args/);
  assert.match(callFailureHint(meta('circuit_open')), /paused calls/);
  assert.match(callFailureHint(meta('tool_crashed')), /HTTP 500/);
});

it('says to read the message for a kind with no hint, an unknown kind, or no kind', () => {
  for (const m of [meta('rate_limited'), meta('output_schema_mismatch'), meta('no_such_kind'), meta('__proto__'), {}, undefined, 'x'])
    assert.equal(callFailureHint(m), 'see the message above');
});
