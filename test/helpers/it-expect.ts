/**
 * What a client at each protocol revision must receive from the bridge for
 * the integration catalog (test/helpers/it-bridge.ts `integrationTools()`),
 * written once and asserted by every face (HTTP, stdio) and client kind.
 *
 * All checks run on the raw wire `result` the client received (the SDK
 * clients strip or reshape fields, e.g. v2 drops `resultType`).
 */
import assert from 'node:assert/strict';
import semver from 'semver';
import type { McpRevision } from '../../src/core/mcp-versions.js';
import type { FixtureTool } from '../fixtures/oxp-fixture-server.js';

export const MODERN: McpRevision = '2026-07-28';
const ERROR_META_KEY = 'mcp-oxp-bridge/error';
const TOOL_META_KEY = 'mcp-oxp-bridge/oxp-tool';

type Json = Record<string, unknown>;

const has = (o: Json, key: string) => Object.prototype.hasOwnProperty.call(o, key);

/** The latest version of each fixture tool, by OXP name (what the bridge must list). */
export function latestByName(tools: FixtureTool[]): Map<string, FixtureTool> {
  const best = new Map<string, FixtureTool>();
  for (const tool of tools) {
    const name = tool.name ?? tool.id;
    const current = best.get(name);
    if (!current || semver.gt(tool.version ?? '0.0.0', current.version ?? '0.0.0')) best.set(name, tool);
  }
  return best;
}

/** The output schema a tool declares upstream, `undefined` for none (`null` or absent). */
function declaredOutputSchema(tool: FixtureTool): Json | undefined {
  return tool.output_schema === null || tool.output_schema === undefined ? undefined : tool.output_schema;
}

export function wrapped(schema: Json): Json {
  return { type: 'object', properties: { result: schema }, required: ['result'] };
}

/** Envelope fields of a result: `resultType` (and the cache fields on tools/list) only for 2026-07-28. */
function expectEnvelope(revision: McpRevision, result: Json, method: 'tools/list' | 'tools/call', where: string): void {
  const modernOnly = method === 'tools/list' ? ['resultType', 'ttlMs', 'cacheScope'] : ['resultType'];
  if (revision >= MODERN) {
    assert.equal(result.resultType, 'complete', `${where}: resultType`);
    if (method === 'tools/list') {
      assert.equal(typeof result.ttlMs, 'number', `${where}: ttlMs`);
      assert.ok((result.ttlMs as number) >= 0, `${where}: ttlMs >= 0`);
      assert.ok(result.cacheScope === 'public' || result.cacheScope === 'private', `${where}: cacheScope`);
    }
  } else {
    for (const key of modernOnly) assert.ok(!has(result, key), `${where}: ${key} must not reach a ${revision} client`);
  }
}

/** Per-revision shape of one listed tool. */
export function expectTool(revision: McpRevision, tool: Json, fixture: FixtureTool): void {
  const where = `${revision} tools/list ${String(tool.name)}`;
  assert.deepEqual(tool.inputSchema, fixture.input_schema ?? { type: 'object', properties: {} }, `${where}: inputSchema passes through`);
  if (fixture.description) assert.equal(tool.description, fixture.description, `${where}: description of the latest version`);
  assert.ok(!has(tool, 'icons'), `${where}: icons`);
  // Tasks (on by default, every tool `optional` unless configured): execution.taskSupport is a 2025-11-25 field only.
  if (revision === '2025-11-25') assert.deepEqual(tool.execution, { taskSupport: 'optional' }, `${where}: execution.taskSupport`);
  else assert.ok(!has(tool, 'execution'), `${where}: execution only at 2025-11-25`);

  const annotations = tool.annotations as Json | undefined;
  if (revision < '2025-03-26') assert.ok(!has(tool, 'annotations'), `${where}: annotations before 2025-03-26`);
  else if (revision === '2025-03-26') assert.equal(annotations?.title, fixture.name, `${where}: annotations.title carries the title on 2025-03-26`);
  else assert.equal(annotations?.title, undefined, `${where}: annotations.title only on 2025-03-26`);

  if (revision < '2025-06-18') {
    for (const key of ['title', 'outputSchema', '_meta']) assert.ok(!has(tool, key), `${where}: ${key} must not reach a ${revision} client`);
    return;
  }
  assert.equal(tool.title, fixture.name, `${where}: title`);
  const meta = tool._meta as Json | undefined;
  assert.deepEqual(meta?.[TOOL_META_KEY], { id: fixture.id, version: fixture.version }, `${where}: _meta names the OXP tool`);
  const raw = declaredOutputSchema(fixture);
  if (raw === undefined) assert.ok(!has(tool, 'outputSchema'), `${where}: no outputSchema for a tool without output`);
  else if (revision >= MODERN || raw.type === 'object') assert.deepEqual(tool.outputSchema, raw, `${where}: outputSchema raw`);
  else assert.deepEqual(tool.outputSchema, wrapped(raw), `${where}: non-object outputSchema wrapped as {result}`);
}

/** A whole tools/list result (all pages already merged into `tools`). */
export function expectToolsList(revision: McpRevision, result: Json, fixtureTools: FixtureTool[]): void {
  const expected = latestByName(fixtureTools);
  const tools = result.tools as Json[];
  assert.deepEqual(tools.map((t) => t.name).sort(), [...expected.keys()].sort(), `${revision}: the listed names`);
  expectEnvelope(revision, result, 'tools/list', `${revision} tools/list`);
  for (const tool of tools) expectTool(revision, tool, expected.get(tool.name as string)!);
}

export interface OutputCase {
  tool: string;
  kind: 'number' | 'object' | 'array' | 'string' | 'null';
  args: Json;
  /** The upstream value; for `null`, no structured content may appear. */
  value: unknown;
  /** Exact text block expected (undefined: only "a non-empty text block"). */
  text?: string;
  /** A pattern some text block must match. */
  textPattern?: RegExp;
  /** Custom check of the (unwrapped) value instead of deepEqual. */
  checkValue?: (value: unknown) => void;
}

export const OUTPUT_CASES: OutputCase[] = [
  { tool: 'Math_Double', kind: 'number', args: { x: 21 }, value: 42, text: '42' },
  // The demo Calculator.Add's latest version (2.0.0) declares an object output.
  { tool: 'Calculator_Add', kind: 'object', args: { a: 2, b: 3 }, value: { sum: 5 }, text: '{"sum":5}' },
  {
    tool: 'System_GetTimestamp',
    kind: 'object',
    args: {},
    value: undefined,
    checkValue: (value) => {
      const timestamp = (value as Json | undefined)?.timestamp;
      assert.equal(typeof timestamp, 'string');
      assert.ok(!Number.isNaN(Date.parse(timestamp as string)), `timestamp ${String(timestamp)}`);
    },
  },
  { tool: 'List_Numbers', kind: 'array', args: {}, value: [1, 2, 3], text: '[1,2,3]' },
  { tool: 'Text_Echo', kind: 'string', args: { text: 'héllo "wörld"' }, value: 'héllo "wörld"', text: 'héllo "wörld"' },
  { tool: 'Doorbell_Ring', kind: 'null', args: { doorbell_id: 'doorbell42' }, value: null, textPattern: /success/i },
];

export function textBlocks(result: Json): string[] {
  const content = result.content as Json[];
  assert.ok(Array.isArray(content), 'content is an array');
  return content.filter((b) => b.type === 'text').map((b) => b.text as string);
}

/** A successful tools/call result at `version` for one output kind. */
export function expectSuccess(revision: McpRevision, result: Json, c: OutputCase, fixtureTools: FixtureTool[]): void {
  const where = `${revision} tools/call ${c.tool}`;
  const fixture = latestByName(fixtureTools).get(c.tool)!;
  assert.notEqual(result.isError, true, `${where}: isError`);
  const texts = textBlocks(result);
  assert.ok(texts.length >= 1 && texts.every((t) => t.length > 0), `${where}: a non-empty text block is always present`);
  if (c.text !== undefined) assert.ok(texts.includes(c.text), `${where}: text block ${JSON.stringify(c.text)} in ${JSON.stringify(texts)}`);
  if (c.textPattern)
    assert.ok(
      texts.some((t) => c.textPattern!.test(t)),
      `${where}: a text block matching ${String(c.textPattern)} in ${JSON.stringify(texts)}`,
    );
  expectEnvelope(revision, result, 'tools/call', where);

  const raw = declaredOutputSchema(fixture);
  if (revision < '2025-06-18' || raw === undefined || c.kind === 'null') {
    assert.ok(!has(result, 'structuredContent'), `${where}: no structuredContent`);
    return;
  }
  assert.ok(has(result, 'structuredContent'), `${where}: structuredContent`);
  let value = result.structuredContent;
  if (revision < MODERN && raw.type !== 'object') {
    assert.ok(value !== null && typeof value === 'object' && !Array.isArray(value), `${where}: legacy structuredContent is an object`);
    assert.deepEqual(Object.keys(value as Json), ['result'], `${where}: non-object value wrapped as {result}`);
    value = (value as Json).result;
  }
  if (c.checkValue) c.checkValue(value);
  else assert.deepEqual(value, c.value, `${where}: value`);
}

/** The Doorbell_Ring `doorbell1` retryable tool error. */
export function expectDoorbellError(revision: McpRevision, result: Json, wireMessage: unknown): void {
  const where = `${revision} tools/call Doorbell_Ring doorbell1`;
  assert.equal(result.isError, true, `${where}: isError`);
  const text = textBlocks(result).join('\n');
  assert.match(text, /Doorbell ID not found/, `${where}: message`);
  assert.match(text, /ids: doorbell42,doorbell84/, `${where}: additional_prompt_content`);
  const meta = (result._meta as Json | undefined)?.[ERROR_META_KEY] as Json | undefined;
  assert.ok(meta, `${where}: _meta['${ERROR_META_KEY}']`);
  assert.equal(meta.can_retry, true, `${where}: can_retry`);
  assert.equal(meta.retry_after_ms, 500, `${where}: retry_after_ms`);
  const everything = JSON.stringify(wireMessage);
  assert.ok(!everything.includes('does not exist'), `${where}: developer_message leaked: ${everything}`);
  assert.ok(!everything.includes('developer_message'), `${where}: developer_message key leaked`);
  assert.ok(!has(result, 'structuredContent'), `${where}: no structuredContent on errors`);
  expectEnvelope(revision, result, 'tools/call', where);
}

/** Validate_Strict with `count: 0`: the upstream 422 as an isError result naming `count`. */
export function expectValidationError(revision: McpRevision, result: Json): void {
  const where = `${revision} tools/call Validate_Strict {count:0}`;
  assert.equal(result.isError, true, `${where}: isError`);
  assert.match(textBlocks(result).join('\n'), /\bcount\b/, `${where}: names the parameter`);
  const meta = (result._meta as Json | undefined)?.[ERROR_META_KEY] as Json | undefined;
  assert.equal(meta?.kind, 'invalid_input', `${where}: error kind`);
  assert.ok(!has(result, 'structuredContent'), `${where}: no structuredContent on errors`);
  expectEnvelope(revision, result, 'tools/call', where);
}
