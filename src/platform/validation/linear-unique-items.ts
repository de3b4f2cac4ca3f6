/**
 * `uniqueItems` in linear time: an owned copy of ajv's keyword
 * (docs/design.md, "Owned copies of library code"), not for speed but for a
 * bound. ajv checks it by comparing every pair of items deeply (quadratic: a
 * large argument froze the process; the figure:
 * bench/README.md#owned-copies-receipts-issue-31); here each item is hashed as
 * canonical JSON instead. The schema
 * keyword is renamed to our own keyword, whose check is that hash set. Held
 * by src/platform/validation/input-validator.test.ts (the same verdicts, key
 * order ignored; 20,000 items within the bound). Delete it when ajv's
 * `uniqueItems` is linear.
 */
import type { Ajv } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { JsonObject, JsonValue } from '../../core/json.js';

const UNIQUE_KEYWORD = 'x-mcp-oxp-bridge-unique-items';

/** Keys whose value is a map of names to schemas: a `uniqueItems` key there names a property, not the keyword. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies']);
/** Keys whose value is data, not schema: never rewritten. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples']);

/**
 * The schema with every `uniqueItems: true` keyword renamed to our linear
 * keyword. Copy-on-write; recursion is bounded by the catalog's schema depth.
 */
export function withLinearUniqueItems<T extends JsonValue>(schema: T, inMap = false): T {
  if (Array.isArray(schema)) {
    let out: JsonValue[] | undefined;
    schema.forEach((item, i) => {
      const next = withLinearUniqueItems(item);
      if (next !== item) (out ??= [...schema])[i] = next;
    });
    return (out ?? schema) as T;
  }
  if (typeof schema !== 'object' || schema === null) return schema;
  let out: JsonObject | undefined;
  for (const [key, value] of Object.entries(schema)) {
    if (!inMap && key === 'uniqueItems') {
      out ??= { ...schema };
      delete out.uniqueItems;
      if (value === true) out[UNIQUE_KEYWORD] = true;
      continue;
    }
    if (!inMap && DATA_KEYWORDS.has(key)) continue;
    const next = withLinearUniqueItems(value, !inMap && SCHEMA_MAPS.has(key));
    if (next !== value) (out ??= { ...schema })[key] = next;
  }
  return (out ?? schema) as T;
}

export function withUniqueKeyword<A extends Ajv | Ajv2020>(ajv: A): A {
  ajv.addKeyword({
    keyword: UNIQUE_KEYWORD,
    type: 'array',
    schemaType: 'boolean',
    error: { message: 'must NOT have duplicate items' },
    validate: (enabled: boolean, data: unknown[]) => !enabled || allDistinct(data),
  });
  return ajv;
}

/** JSON Schema equality (object key order ignored) by canonical text: linear in the data. */
function allDistinct(items: unknown[]): boolean {
  const seen = new Set<string>();
  for (const item of items) {
    const key = canonicalJson(item);
    if (seen.has(key)) return false;
    seen.add(key);
  }
  return true;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
