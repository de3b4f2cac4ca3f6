import { it } from 'node:test';
import assert from 'node:assert/strict';
import { keyTreeOf, knownKeysAt } from './key-tree.js';
import { CONFIG_SCHEMA } from './schema.js';

it('knows the keys of properties, $refs, oneOf forms and if/then, under list items and map names', () => {
  const schema = {
    $defs: { source: { oneOf: [{ properties: { env: {} } }, { properties: { file: {} } }] } },
    properties: {
      list: { items: { properties: { name: {}, secret: { $ref: '#/$defs/source' } } } },
      map: { additionalProperties: { properties: { version: {} } } },
      exchange: { properties: { use: {} }, if: {}, then: { properties: { audience: {} } } },
    },
  };
  const tree = keyTreeOf(schema);
  assert.deepEqual(knownKeysAt(tree, []), ['list', 'map', 'exchange']);
  assert.deepEqual(knownKeysAt(tree, ['list', '3']), ['name', 'secret']);
  assert.deepEqual(knownKeysAt(tree, ['list', '0', 'secret']), ['env', 'file']);
  assert.deepEqual(knownKeysAt(tree, ['map', 'anything']), ['version']);
  assert.deepEqual(knownKeysAt(tree, ['exchange']), ['use', 'audience']);
  assert.deepEqual(knownKeysAt(tree, ['nowhere', 'deeper']), []);
});

it('the configuration tree has every top-level key of CONFIG_SCHEMA', () => {
  assert.deepEqual(knownKeysAt(keyTreeOf(CONFIG_SCHEMA), []), Object.keys(CONFIG_SCHEMA.properties));
});
