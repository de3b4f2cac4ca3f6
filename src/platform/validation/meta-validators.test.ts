/**
 * The precompiled meta-schema validators (generated/meta-validators.ts, scripts/generate-validators.ts) against ajv's
 * own `validateSchema`, which input-validator.ts used before them and still uses for a schema naming another
 * meta-schema: the same verdict and the same error text on valid and invalid schemas of both dialects; and the
 * InputValidator refusing what ajv refused, with ajv's words, whether they are loaded or not.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { generateMetaValidators } from '../../../scripts/generate-validators.js';
import { draft07, draft2020 } from './generated/meta-validators.js';
import { createLogger } from '../log.js';
import { InputValidator, loadMetaValidators } from './input-validator.js';

const OPTIONS = { strict: false, allErrors: true, validateFormats: false } as const;

/** Valid and invalid schemas, nested faults included. */
const SCHEMAS: Record<string, unknown>[] = [
  {},
  { type: 'object', properties: { a: { type: 'string', pattern: '^x' } }, required: ['a'], additionalProperties: false },
  { type: 'foo' },
  { type: 'object', required: 'a' },
  { type: 'object', properties: [] },
  { type: 'object', properties: { a: { type: 'number', minimum: 'one' } } },
  { type: 'array', items: { type: ['string', 7] } },
  { type: 'array', prefixItems: [{ type: 'string' }], items: false },
  { $defs: { x: { type: 'string', maxLength: -1 } }, $ref: '#/$defs/x' },
  { definitions: { x: { enum: 'no' } } },
  { $id: 'https://example.com/s#frag' },
  { $anchor: '1bad' },
  { oneOf: [] },
  { allOf: [{ type: 'string' }, { not: { const: 'a' } }] },
  { type: 'object', dependentRequired: { a: ['b', 'b'] } },
  { type: 'object', patternProperties: { '^a': { type: 'integer' } }, propertyNames: { maxLength: 3 } },
  { if: { type: 'string' }, then: { minLength: 'x' } },
  { $comment: 5, title: 3, description: [] },
  { type: 'object', properties: { deep: { type: 'object', properties: { deeper: { items: { uniqueItems: 'yes' } } } } } },
];

describe('the precompiled meta-schema validators', () => {
  it('src/platform/validation/generated/meta-validators.ts is up to date (npm run validators:generate)', () => {
    const committed = readFileSync(new URL('./generated/meta-validators.ts', import.meta.url), 'utf8');
    assert.ok(committed === generateMetaValidators(), 'the generated meta-schema validators are stale: run npm run validators:generate');
  });

  for (const [name, precompiled, ajv] of [
    ['draft 2020-12', draft2020, new Ajv2020(OPTIONS)],
    ['draft-07', draft07, new Ajv(OPTIONS)],
  ] as const) {
    it(`${name}: the same verdict and error text as ajv's validateSchema`, () => {
      let refused = 0;
      for (const schema of SCHEMAS) {
        const expected = ajv.validateSchema(schema);
        const expectedText = ajv.errorsText(ajv.errors);
        assert.equal(precompiled(schema), expected, JSON.stringify(schema));
        assert.equal(ajv.errorsText(precompiled.errors), expectedText, JSON.stringify(schema));
        if (!expected) refused++;
      }
      assert.ok(refused >= 10, `the corpus has invalid schemas for ${name} (${refused})`);
    });
  }
});

describe('InputValidator: schemas its meta-schema refuses', () => {
  const refusedWords = (loaded: boolean) => {
    const lines: string[] = [];
    const v = new InputValidator(10, createLogger('warn', new Writable({ write: (c, _e, done) => (lines.push(String(c)), done()) })));
    const errors = [
      v.check({ id: `a@${loaded}`, inputSchema: { type: 'object', required: 'a' } }, {}),
      v.check(
        { id: `b@${loaded}`, inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { a: { minimum: 'x' } } } },
        {},
      ),
      v.check({ id: `c@${loaded}`, inputSchema: { $schema: 'https://json-schema.org/draft/2019-09/schema', type: 'object' } }, {}),
    ];
    assert.deepEqual(errors, [undefined, undefined, undefined], 'left to the upstream');
    return lines.map((l) => (JSON.parse(l) as { err: string }).err);
  };

  it("are left to the upstream with ajv's words, the precompiled validators loaded or not", async () => {
    const before = refusedWords(false);
    await loadMetaValidators();
    const after = refusedWords(true);
    assert.deepEqual(after, before);
    assert.match(after[0]!, /^schema is invalid: data\/required must be array/);
    assert.match(after[1]!, /^schema is invalid: data\/properties\/a\/minimum must be number/);
    assert.match(after[2]!, /no schema with key or ref/);
  });
});
