/**
 * The schema helper's compiled validators (mcp-schema.ts keeps them on disk for the run's processes): a validator
 * loaded from that cache accepts and refuses what one compiled afresh does, and `closed` refuses a field the revision
 * does not define.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { assertValid, validatorFor } from './mcp-schema.js';

const TOOL = { name: 'add', inputSchema: { type: 'object' } };

it('a 2025-06-18 tool with outputSchema is valid; a 2025-03-26 one is refused when closed, not when official', () => {
  assertValid('2025-06-18', 'Tool', { ...TOOL, outputSchema: { type: 'object' } });
  assert.throws(() => assertValid('2025-03-26', 'Tool', { ...TOOL, outputSchema: { type: 'object' } }), /not a valid 2025-03-26 Tool \(closed\)/);
  assertValid('2025-03-26', 'Tool', { ...TOOL, outputSchema: { type: 'object' } }, 'official');
});

it('a validator from the cache gives the verdicts and errors of one compiled afresh', () => {
  // Loaded twice: the second time from the file the first wrote, whichever process wrote it.
  const cached = validatorFor('2025-11-25', 'CallToolResult', 'official');
  const schema = JSON.parse(readFileSync(new URL('../schemas/2025-11-25/schema.json', import.meta.url), 'utf8')) as Record<string, unknown>;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema({ ...schema, $id: 'fresh' });
  const fresh = ajv.getSchema('fresh#/$defs/CallToolResult')!;
  const values = [
    { content: [{ type: 'text', text: 'ok' }] },
    { content: [{ type: 'text' }] },
    { content: 'no' },
    { content: [], isError: 'yes' },
    { content: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }], structuredContent: { a: 1 } },
  ];
  for (const value of values) {
    assert.equal(cached(value), fresh(value), JSON.stringify(value));
    assert.deepEqual(cached.errors ?? null, fresh.errors ?? null, JSON.stringify(value));
  }
});
