import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import type { JsonObject } from '../core/json.js';
import { createLogger } from '../log.js';
import { InputValidator } from './input-validator.js';

const entryFor = (inputSchema: JsonObject, key = 'T.t') => ({ id: `${key}@1.0.0`, inputSchema });

function capture() {
  const lines: string[] = [];
  const log = createLogger('warn', new Writable({ write: (c, _e, done) => (lines.push(String(c)), done()) }));
  return { log, lines };
}

describe('InputValidator', () => {
  it('names each invalid, missing or unexpected parameter', () => {
    const v = new InputValidator(10, capture().log);
    const entry = entryFor({
      type: 'object',
      properties: { a: { type: 'number' }, needed: { type: 'boolean' }, mode: { enum: ['x', 'y'] }, nested: { type: 'object', properties: { n: { type: 'integer' } } } },
      required: ['a', 'needed'],
      additionalProperties: false,
    });
    assert.equal(v.check(entry, { a: 1, needed: true }), undefined);
    assert.deepEqual(v.check(entry, { a: 'x', mode: 'z', nested: { n: 1.5 }, extra: 1 }), [
      { parameter: 'needed', message: "must have required property 'needed'" },
      { parameter: 'extra', message: 'is not an accepted parameter' },
      { parameter: 'a', message: 'must be number' },
      { parameter: 'mode', message: 'must be one of: "x", "y"' },
      { parameter: 'nested.n', message: 'must be integer' },
    ]);
  });

  it('understands 2020-12 ($defs, prefixItems) and draft-07 schemas', () => {
    const v = new InputValidator(10, capture().log);
    const modern = entryFor({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { pos: { type: 'integer', minimum: 1 } },
      properties: { count: { $ref: '#/$defs/pos' }, pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] } },
    });
    assert.deepEqual(v.check(modern, { count: 0 }), [{ parameter: 'count', message: 'must be >= 1' }]);
    assert.deepEqual(v.check(modern, { pair: ['a', 'b'] }), [{ parameter: 'pair.1', message: 'must be number' }]);
    const draft7 = entryFor({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { s: { type: 'string' } } }, 'D.d');
    assert.deepEqual(v.check(draft7, { s: 1 }), [{ parameter: 's', message: 'must be string' }]);
  });

  it('a schema that does not compile leaves the tool usable and is logged once', () => {
    const { log, lines } = capture();
    const v = new InputValidator(10, log);
    const broken = entryFor({ type: 'object', properties: { a: { $ref: '#/$defs/missing' } } });
    assert.equal(v.check(broken, { a: 1 }), undefined);
    assert.equal(v.check(broken, { a: 2 }), undefined);
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /does not compile/);
  });

  it('recompiles when a catalog refresh changes the schema', () => {
    const v = new InputValidator(10, capture().log);
    assert.equal(v.check(entryFor({ type: 'object', properties: { a: { type: 'number' } } }), { a: 'x' })?.length, 1);
    assert.equal(v.check(entryFor({ type: 'object', properties: { a: { type: 'string' } } }), { a: 'x' }), undefined);
  });
});
