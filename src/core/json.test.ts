import { it } from 'node:test';
import assert from 'node:assert/strict';
import { exceedsJsonDepth, jsonBoundExceeded, tryParseJson } from './json.js';

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

it('bounds a parsed value by depth and size without recursing', () => {
  const deep = JSON.parse(`${'['.repeat(200_000)}${']'.repeat(200_000)}`) as unknown;
  assert.equal(jsonBoundExceeded(deep, 64), 'depth');
  assert.equal(jsonBoundExceeded({ a: [{ b: 1 }] }, 3), undefined);
  assert.equal(jsonBoundExceeded({ a: [{ b: 1 }] }, 2), 'depth');
  assert.equal(jsonBoundExceeded('text', 0), undefined);
  assert.equal(jsonBoundExceeded({ a: 1, b: [2, 3] }, 10, 5), undefined);
  assert.equal(jsonBoundExceeded({ a: 1, b: [2, 3] }, 10, 4), 'size');
});
