import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import type { JsonObject } from '../../core/json.js';
import { createLogger } from '../log.js';
import { InputValidator, MAX_VALIDATED_SCHEMA_VALUES } from './input-validator.js';

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
      properties: {
        a: { type: 'number' },
        needed: { type: 'boolean' },
        mode: { enum: ['x', 'y'] },
        nested: { type: 'object', properties: { n: { type: 'integer' } } },
      },
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

describe('InputValidator on untrusted schemas', () => {
  const stringWith = (pattern: string) => ({ type: 'object', properties: { s: { type: 'string', pattern } } }) as JsonObject;

  it('two different patterns validate differently (compiled patterns are not confused by the cache)', () => {
    const v = new InputValidator(10, capture().log);
    const a = entryFor(stringWith('^a+$'), 'A.a');
    const b = entryFor(stringWith('^b+$'), 'B.b');
    assert.equal(v.check(a, { s: 'aaa' }), undefined);
    assert.equal(v.check(b, { s: 'aaa' })?.[0]?.parameter, 's');
    assert.equal(v.check(b, { s: 'bbb' }), undefined);
    assert.equal(v.check(a, { s: 'bbb' })?.[0]?.parameter, 's');
    // Both in one schema, and through patternProperties.
    const both = entryFor({ type: 'object', patternProperties: { '^x': { type: 'string' }, '^y': { type: 'number' } } }, 'C.c');
    assert.equal(v.check(both, { x1: 's', y1: 1 }), undefined);
    assert.deepEqual(
      v.check(both, { x1: 1, y1: 's' })?.map((e) => e.parameter),
      ['x1', 'y1'],
    );
  });

  it('a catastrophic pattern costs linear time on a 100,000-character input', () => {
    const v = new InputValidator(10, capture().log);
    const entry = entryFor(stringWith('^(a+)+$'));
    v.check(entry, { s: 'a' }); // compile outside the timing
    const started = performance.now();
    assert.match(v.check(entry, { s: `${'a'.repeat(100_000)}!` })?.[0]?.message ?? '', /must match pattern/);
    assert.equal(v.check(entry, { s: 'a'.repeat(100_000) }), undefined);
    const keys = entryFor({ type: 'object', patternProperties: { '(a+)+$': { type: 'string' } } }, 'K.k');
    assert.equal(v.check(keys, { [`${'a'.repeat(100_000)}!`]: 1 }), undefined);
    // Backtracking takes hours on these; linear matching a few milliseconds (generous for a loaded machine).
    assert.ok(performance.now() - started < 5_000, `took ${Math.round(performance.now() - started)} ms`);
  });

  it('ordinary ECMAScript patterns keep their meaning (\\d, classes, \\u escapes, \\p{L}, surrogate pairs)', () => {
    const v = new InputValidator(20, capture().log);
    const cases: [string, string[], string[]][] = [
      ['^\\d{3}-\\d{4}$', ['555-1234'], ['55-1234', 'abc-defg']],
      ['^[a-z][a-z0-9_-]*$', ['ab_1-x'], ['1ab', 'Ab']],
      ['^[^\\s@]+@[^\\s@]+\\.[a-z]{2,}$', ['a@b.io'], ['a b@c.io', 'a@b']],
      ['^caf\\u00e9$', ['café'], ['cafe']],
      ['^[\\u0041-\\u005A]+$', ['ABC'], ['abc']],
      ['^\\p{L}+$', ['Größe', '工具'], ['a1']],
      ['^\\uD83D\\uDE00$', ['😀'], ['x']],
      ['^\\\\u0041$', ['\\u0041'], ['A']],
      ['colou?r', ['my color', 'colour'], ['colr']],
    ];
    cases.forEach(([pattern, good, bad], i) => {
      const entry = entryFor(stringWith(pattern), `P.p${i}`);
      for (const s of good) assert.equal(v.check(entry, { s }), undefined, `${pattern} should accept ${s}`);
      for (const s of bad) assert.equal(v.check(entry, { s })?.length, 1, `${pattern} should refuse ${s}`);
    });
  });

  it('a pattern RE2 cannot read (lookahead, backreference) leaves the tool to the upstream, logged once', () => {
    const { log, lines } = capture();
    const v = new InputValidator(10, log);
    const entry = entryFor({ type: 'object', properties: { s: { type: 'string', pattern: '^(?=.*\\d)\\w+$' }, n: { type: 'number' } } });
    assert.equal(v.check(entry, { s: 'abc', n: 'not a number' }), undefined);
    assert.equal(v.check(entry, { s: 'abc' }), undefined);
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /does not compile/);
  });

  it('uniqueItems is checked in linear time, with JSON equality (key order ignored)', () => {
    const v = new InputValidator(10, capture().log);
    const entry = entryFor({
      type: 'object',
      properties: { list: { type: 'array', uniqueItems: true }, uniqueItems: { type: 'string' }, e: { enum: [{ uniqueItems: true }] } },
    });
    assert.deepEqual(
      v.check(entry, {
        list: [
          { a: 1, b: [2] },
          { b: [2], a: 1 },
        ],
      }),
      [{ parameter: 'list', message: 'must NOT have duplicate items' }],
    );
    assert.equal(v.check(entry, { list: [1, '1', [1], { a: 1 }] }), undefined);
    // A property named uniqueItems and data that mentions it are not the keyword.
    assert.equal(v.check(entry, { uniqueItems: 'x', e: { uniqueItems: true } }), undefined);
    assert.equal(v.check(entry, { uniqueItems: 1 })?.[0]?.parameter, 'uniqueItems');
    const started = performance.now();
    assert.equal(v.check(entry, { list: Array.from({ length: 20_000 }, (_, i) => ({ i })) }), undefined);
    // Linear: well within the bound, which ajv's pairwise comparison was far beyond (bench/README.md#owned-copies-receipts-issue-31).
    assert.ok(performance.now() - started < 5_000, `took ${Math.round(performance.now() - started)} ms`);
  });

  it('a schema too large to compile quickly is left to the upstream, logged once', () => {
    const { log, lines } = capture();
    const v = new InputValidator(10, log);
    const properties = Object.fromEntries(Array.from({ length: MAX_VALIDATED_SCHEMA_VALUES }, (_, i) => [`p${i}`, { type: 'string' }]));
    const entry = entryFor({ type: 'object', properties });
    assert.equal(v.check(entry, { p1: 1 }), undefined);
    assert.equal(v.check(entry, { p1: 2 }), undefined);
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /more than 2000 values/);
  });

  it('arguments too deep for a recursive schema are refused, not thrown', () => {
    const v = new InputValidator(10, capture().log);
    const entry = entryFor({ type: 'object', properties: { n: { $ref: '#' } } });
    const deep = JSON.parse(`${'{"n":'.repeat(50_000)}{}${'}'.repeat(50_000)}`) as JsonObject;
    assert.deepEqual(v.check(entry, deep), [{ parameter: '(arguments)', message: 'are nested too deeply to validate' }]);
  });
});
