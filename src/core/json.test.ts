import { it } from 'node:test';
import assert from 'node:assert/strict';
import { exceedsJsonDepth, tryParseJson } from './json.js';

it('measures JSON nesting without parsing, ignoring brackets inside strings', () => {
  assert.equal(exceedsJsonDepth('{"a":[{"b":1}]}', 3), false);
  assert.equal(exceedsJsonDepth('{"a":[{"b":1}]}', 2), true);
  assert.equal(exceedsJsonDepth('{"a":"[[[[[[\\"[[["}', 1), false);
  assert.equal(exceedsJsonDepth('['.repeat(100000), 64), true);
});

it('parses JSON with a BOM and answers undefined for non-JSON', () => {
  assert.deepEqual(tryParseJson('\ufeff{"a":1}'), { a: 1 });
  assert.equal(tryParseJson('{'), undefined);
  assert.equal(tryParseJson(''), undefined);
});
