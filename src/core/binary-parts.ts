/**
 * Binary and linked content in OXP values, both directions, pure: whole
 * values (one MCP block ⇄ one part is content-parts.ts's).
 *
 * One rule, JSON Schema's own content keywords: a binary value is a base64
 * string described by `{"type":"string","contentEncoding":"base64",
 * "contentMediaType":"image/png"}`. Where the description lives:
 * - declared: the tool's `output_schema` is such a schema, or an array whose
 *   `items` is one (a native OXP tool that returns an image);
 * - inline: content whose kind is known only per call (MCP content blocks) is
 *   a *part* that carries the keywords next to the data they describe:
 *   `{"contentEncoding":"base64","contentMediaType":"image/png","data":"…"}`;
 *   resources, links and annotated text have part forms too (content-parts.ts); text is a string.
 *
 * Invariants: MCP content → parts → the same blocks (the round trip is
 * lossless); a value is only read as parts when every member is a part or a
 * string and at least one is a part; per-revision downgrades (audio,
 * resource_link) are project.ts's.
 */
import { isPlainObject, type JsonObject, type JsonValue } from './json.js';
import type { McpContentBlock } from './mcp-wire.js';
import { binaryBlock, blockOfPart, MEDIA_RE, partOf } from './content-parts.js';

/** MCP content → the OXP value: one part alone, else an array of parts (content-parts.ts). */
export function partsFromContent(blocks: readonly McpContentBlock[]): JsonValue {
  return blocks.length === 1 ? partOf(blocks[0]!) : blocks.map(partOf);
}

/** `{"type":"string","contentEncoding":"base64","contentMediaType":"image/…"|"audio/…"}`: the media type, else undefined. */
export function binaryMediaType(schema: JsonValue | undefined): string | undefined {
  if (!isPlainObject(schema) || schema.type !== 'string' || schema.contentEncoding !== 'base64' || typeof schema.contentMediaType !== 'string')
    return undefined;
  return MEDIA_RE.test(schema.contentMediaType) ? schema.contentMediaType : undefined;
}

/** Whether an output schema declares binary content (the MCP face then lists no outputSchema: the content says it all). */
export function declaresBinary(schema: JsonObject | undefined): boolean {
  return binaryMediaType(schema) !== undefined || (schema?.type === 'array' && binaryMediaType(schema.items) !== undefined);
}

/**
 * An OXP value → MCP content blocks, when it is binary by the tool's
 * declared output schema or is made of inline parts; undefined otherwise
 * (the value is then sent as text and structuredContent, as before).
 */
export function contentFromValue(value: JsonValue, outputSchema: JsonObject | undefined): McpContentBlock[] | undefined {
  const declared = binaryMediaType(outputSchema);
  if (declared !== undefined) return typeof value === 'string' ? opt([binaryBlock(value, declared)]) : undefined;
  const itemType = outputSchema?.type === 'array' ? binaryMediaType(outputSchema.items) : undefined;
  if (itemType !== undefined)
    return Array.isArray(value) && value.every((v) => typeof v === 'string') ? opt(value.map((v) => binaryBlock(v, itemType))) : undefined;
  if (outputSchema !== undefined) return undefined;
  const single = blockOfPart(value);
  if (single) return [single];
  if (!Array.isArray(value) || !value.some((v) => blockOfPart(v) !== undefined)) return undefined;
  return opt(value.map((v) => (typeof v === 'string' ? { type: 'text', text: v } : blockOfPart(v))));
}

function opt(blocks: (McpContentBlock | undefined)[]): McpContentBlock[] | undefined {
  return blocks.every((b) => b !== undefined) ? blocks : undefined;
}
