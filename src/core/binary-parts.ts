/**
 * Binary and linked content in OXP values, both directions, pure.
 *
 * One rule, JSON Schema's own content keywords: a binary value is a base64
 * string described by `{"type":"string","contentEncoding":"base64",
 * "contentMediaType":"image/png"}`. Where the description lives:
 * - declared: the tool's `output_schema` is such a schema, or an array whose
 *   `items` is one (a native OXP tool that returns an image);
 * - inline: content whose kind is known only per call (MCP content blocks) is
 *   a *part* that carries the keywords next to the data they describe:
 *   `{"contentEncoding":"base64","contentMediaType":"image/png","data":"…"}`;
 *   a resource link is `{"uri","name",…,"contentMediaType"?}`; text is a string.
 *
 * Invariants: an MCP image/audio/resource_link block → part → the same block
 * (the round trip is lossless); a value is only read as parts when every
 * member is a part or a string and at least one is a part; per-revision
 * downgrades (audio, resource_link) are project.ts's.
 */
import { isPlainObject, type JsonObject, type JsonValue } from './json.js';
import type { McpContentBlock } from './mcp-wire.js';

/** The optional members of a resource link: MCP block key → part key, with the type each must have. */
const LINK_OPTIONAL: readonly (readonly [block: string, part: string, type: 'string' | 'number'])[] = [
  ['title', 'title', 'string'],
  ['description', 'description', 'string'],
  ['mimeType', 'contentMediaType', 'string'],
  ['size', 'size', 'number'],
];
const LINK_KEYS = new Set(['uri', 'name', ...LINK_OPTIONAL.map(([, part]) => part)]);
const BINARY_KEYS = new Set(['contentEncoding', 'contentMediaType', 'data']);
const MEDIA_RE = /^(image|audio)\/[A-Za-z0-9.+-]+$/;

/** MCP content → the OXP value (one part alone, else an array), or undefined when a block has no part form (kept as MCP blocks). */
export function partsFromContent(blocks: readonly McpContentBlock[]): JsonValue | undefined {
  const parts: JsonValue[] = [];
  for (const block of blocks) {
    const part = partOf(block);
    if (part === undefined) return undefined;
    parts.push(part);
  }
  return parts.length === 1 ? parts[0]! : parts;
}

function partOf(block: McpContentBlock): JsonValue | undefined {
  if (block.type === 'text' && typeof block.text === 'string' && block.annotations === undefined && block._meta === undefined) return block.text;
  if ((block.type === 'image' || block.type === 'audio') && typeof block.data === 'string' && typeof block.mimeType === 'string') {
    return { contentEncoding: 'base64', contentMediaType: block.mimeType, data: block.data };
  }
  if (block.type === 'resource_link' && typeof block.uri === 'string' && typeof block.name === 'string') {
    const part: JsonObject = { uri: block.uri, name: block.name };
    for (const [from, to, type] of LINK_OPTIONAL) if (typeof block[from] === type) part[to] = block[from] as JsonValue;
    return part;
  }
  return undefined;
}

/** An inline part → its MCP block; undefined when `value` is not a part. */
function blockOfPart(value: JsonValue): McpContentBlock | undefined {
  if (!isPlainObject(value)) return undefined;
  const keys = Object.keys(value);
  if (value.contentEncoding === 'base64' && typeof value.data === 'string' && typeof value.contentMediaType === 'string' && keys.every((k) => BINARY_KEYS.has(k))) {
    return binaryBlock(value.data, value.contentMediaType);
  }
  if (typeof value.uri === 'string' && typeof value.name === 'string' && keys.every((k) => LINK_KEYS.has(k))) {
    const block: McpContentBlock = { type: 'resource_link', uri: value.uri, name: value.name };
    for (const [to, from, type] of LINK_OPTIONAL) if (typeof value[from] === type) block[to] = value[from];
    return block;
  }
  return undefined;
}

function binaryBlock(data: string, mimeType: string): McpContentBlock | undefined {
  const kind = MEDIA_RE.exec(mimeType)?.[1];
  return kind ? { type: kind, data, mimeType } : undefined;
}

/** `{"type":"string","contentEncoding":"base64","contentMediaType":"image/…"|"audio/…"}`: the media type, else undefined. */
export function binaryMediaType(schema: JsonValue | undefined): string | undefined {
  if (!isPlainObject(schema) || schema.type !== 'string' || schema.contentEncoding !== 'base64' || typeof schema.contentMediaType !== 'string') return undefined;
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
  if (itemType !== undefined) return Array.isArray(value) && value.every((v) => typeof v === 'string') ? opt(value.map((v) => binaryBlock(v, itemType))) : undefined;
  if (outputSchema !== undefined) return undefined;
  const single = blockOfPart(value);
  if (single) return [single];
  if (!Array.isArray(value) || !value.some((v) => blockOfPart(v) !== undefined)) return undefined;
  return opt(value.map((v) => (typeof v === 'string' ? { type: 'text', text: v } : blockOfPart(v))));
}

function opt(blocks: (McpContentBlock | undefined)[]): McpContentBlock[] | undefined {
  return blocks.every((b) => b !== undefined) ? (blocks) : undefined;
}
