/**
 * The derived configuration types say what the validator guarantees: a key
 * with a default is present, one without is optional, `required` keys are
 * present, enums are unions, `$ref`s resolve. Checked by the type checker
 * (`npm test` type-checks first); the run-time part feeds a validated value
 * through the types.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { FromSchema } from './from-schema.js';
import type { BridgeConfig, UpstreamEntryConfig, ValueSourceConfig } from './types.js';
import { loadConfig } from './load.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const holds = <T extends true>(): T => true as T;

it('derives presence, optionality, enums and references from the schema', () => {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- a value only for `typeof`: `as const` gives the literal type FromSchema reads
  const schema = {
    type: 'object',
    additionalProperties: false,
    $defs: { src: { oneOf: [{ type: 'object', additionalProperties: false, required: ['env'], properties: { env: { type: 'string' } } }] } },
    required: ['name'],
    properties: {
      name: { type: 'string' },
      port: { type: 'integer', default: 1 },
      note: { type: 'string' },
      mode: { enum: ['a', 'b'] },
      list: { type: 'array', items: { type: 'boolean' }, default: [] },
      secret: { $ref: '#/$defs/src' },
      map: { type: 'object', additionalProperties: { type: 'number' } },
    },
  } as const;
  holds<
    Equal<
      FromSchema<typeof schema>,
      { name: string; port: number; list: boolean[]; note?: string; mode?: 'a' | 'b'; secret?: { env: string }; map?: Record<string, number> }
    >
  >();
  holds<Equal<BridgeConfig['transport'], 'http' | 'stdio'>>();
  holds<Equal<BridgeConfig['upstream']['connectTimeoutMs'], number>>();
  holds<Equal<UpstreamEntryConfig['connectTimeoutMs'], number | undefined>>();
  holds<Equal<ValueSourceConfig, { env: string } | { file: string }>>();
  const loaded = loadConfig([], {});
  assert.ok(typeof loaded === 'object');
  const timeout: number = loaded.config.upstream.connectTimeoutMs;
  assert.equal(timeout, 10_000);
});
