/**
 * One MCP content block ⇄ one *part* of an OXP value, pure (binary-parts.ts
 * assembles whole values from parts and back).
 *
 * A part is what an OXP client reads without knowing MCP:
 * - text → the string;
 * - image/audio → `{contentEncoding:"base64", contentMediaType, data}`;
 * - embedded text resource → `{uri, contentMediaType?, text}`;
 * - embedded blob resource → `{uri, contentEncoding:"base64", contentMediaType?, data}`
 *   (the bytes stay base64 `data`, as an image's do: never turned into text);
 * - resource link → `{uri, name, title?, description?, contentMediaType?, size?}`;
 * - annotated text → `{text}` (with `x-mcp`, below).
 *
 * `x-mcp` (the key the ToolDefinition uses for what MCP says beyond OXP's
 * fields) is on a part exactly when the part does not say everything the
 * block did (annotations, `_meta`, icons, unknown members): the block as the
 * MCP server sent it, minus its payload string (`text`, `data`,
 * `resource.text`, `resource.blob`), which is the part's `text` or `data`;
 * nothing large is written twice. A block the bridge cannot render (an
 * unknown type, a malformed block) is `{"x-mcp": block}`, whole.
 *
 * Invariants: blockOfPart(partOf(b)) equals b for every well-formed block
 * whose members MCP defines; what blockOfPart takes from `x-mcp` (an
 * untrusted OXP server's value, on the MCP face) is only MCP's members, each
 * of the right type (anything else is dropped); per-revision fitting is
 * project.ts's.
 */
import { isPlainObject, type JsonObject, type JsonValue } from './json.js';
import type { McpContentBlock } from './mcp-wire.js';

/** What MCP says beyond OXP's fields: in a ToolDefinition's input_schema (mcp-to-oxp.ts), and on a part. */
export const X_MCP = 'x-mcp';

/** The optional members of a resource link: MCP block key → part key, with the type each must have. */
const LINK_OPTIONAL: readonly (readonly [block: string, part: string, type: 'string' | 'number'])[] = [
  ['title', 'title', 'string'],
  ['description', 'description', 'string'],
  ['mimeType', 'contentMediaType', 'string'],
  ['size', 'size', 'number'],
];
const LINK_KEYS = new Set(['uri', 'name', ...LINK_OPTIONAL.map(([, part]) => part)]);
const BINARY_KEYS = new Set(['contentEncoding', 'contentMediaType', 'data']);
const BLOB_KEYS = new Set([...BINARY_KEYS, 'uri']);
const TEXT_RESOURCE_KEYS = new Set(['uri', 'contentMediaType', 'text']);
export const MEDIA_RE = /^(image|audio)\/[A-Za-z0-9.+-]+$/;

// ------------------------------------------------------------ MCP → part

/** The part of one MCP block (see the header); never undefined. */
export function partOf(block: McpContentBlock): JsonValue {
  if (!isPlainObject(block)) return { [X_MCP]: block as JsonValue };
  // The plain blocks most results are made of, without the rebuild-and-compare below (allocations per block).
  const members = Object.keys(block).length;
  if (block.type === 'text' && members === 2 && typeof block.text === 'string') return block.text;
  if (members === 3 && typeof block.data === 'string' && typeof block.mimeType === 'string' && MEDIA_RE.exec(block.mimeType)?.[1] === block.type) {
    return { contentEncoding: 'base64', contentMediaType: block.mimeType, data: block.data };
  }
  const readable = readableOf(block);
  if (readable === undefined) return { [X_MCP]: block as JsonObject };
  const rebuilt = blockFromReadable(readable);
  if (rebuilt !== undefined && sameJson(rebuilt, block)) return readable;
  const part: JsonObject = typeof readable === 'string' ? { text: readable } : { ...(readable as JsonObject) };
  part[X_MCP] = withoutPayload(block);
  return part;
}

/** The readable rendering of a block, or undefined when it has none. */
function readableOf(block: McpContentBlock): JsonValue | undefined {
  if (block.type === 'text') return typeof block.text === 'string' ? block.text : undefined;
  if ((block.type === 'image' || block.type === 'audio') && typeof block.data === 'string' && typeof block.mimeType === 'string') {
    return { contentEncoding: 'base64', contentMediaType: block.mimeType, data: block.data };
  }
  if (block.type === 'resource_link' && typeof block.uri === 'string' && typeof block.name === 'string') {
    const part: JsonObject = { uri: block.uri, name: block.name };
    for (const [from, to, type] of LINK_OPTIONAL) if (typeof block[from] === type) part[to] = block[from] as JsonValue;
    return part;
  }
  const resource = block.type === 'resource' && isPlainObject(block.resource) ? block.resource : undefined;
  if (typeof resource?.uri !== 'string') return undefined;
  const media: JsonObject = typeof resource.mimeType === 'string' ? { contentMediaType: resource.mimeType } : {};
  if (typeof resource.text === 'string') return { uri: resource.uri, ...media, text: resource.text };
  if (typeof resource.blob === 'string') return { uri: resource.uri, contentEncoding: 'base64', ...media, data: resource.blob };
  return undefined;
}

/** The block without the payload its part carries as `text` or `data` (the one payload member, nothing else). */
function withoutPayload(block: McpContentBlock): JsonObject {
  const payload = block.type === 'text' ? 'text' : block.type === 'image' || block.type === 'audio' ? 'data' : undefined;
  if (payload !== undefined) {
    const { [payload]: _p, ...rest } = block as JsonObject;
    return rest;
  }
  if (block.type === 'resource' && isPlainObject(block.resource)) {
    const { [typeof block.resource.text === 'string' ? 'text' : 'blob']: _p, ...resource } = block.resource;
    return { ...(block as JsonObject), resource };
  }
  return block as JsonObject;
}

/** Deep equality of two JSON values (key order aside). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

// ------------------------------------------------------------ part → MCP

/** An inline part → its MCP block; undefined when `value` is not a part (a string is text, handled by the caller). */
export function blockOfPart(value: JsonValue): McpContentBlock | undefined {
  if (!isPlainObject(value)) return undefined;
  if (value[X_MCP] !== undefined) return blockFromCarried(value[X_MCP], value);
  return blockFromReadable(value);
}

/** A part without `x-mcp` → its block, by the fixed rules of the header. */
function blockFromReadable(value: JsonValue): McpContentBlock | undefined {
  if (typeof value === 'string') return { type: 'text', text: value };
  if (!isPlainObject(value)) return undefined;
  const keys = Object.keys(value);
  const base64 = value.contentEncoding === 'base64' && typeof value.data === 'string';
  const media = value.contentMediaType;
  if (base64 && typeof media === 'string' && keys.every((k) => BINARY_KEYS.has(k))) return binaryBlock(value.data as string, media);
  if (typeof value.uri === 'string' && (media === undefined || typeof media === 'string')) {
    const mimeType: JsonObject = media === undefined ? {} : { mimeType: media };
    if (base64 && keys.every((k) => BLOB_KEYS.has(k))) return { type: 'resource', resource: { uri: value.uri, ...mimeType, blob: value.data as string } };
    if (typeof value.text === 'string' && keys.every((k) => TEXT_RESOURCE_KEYS.has(k)))
      return { type: 'resource', resource: { uri: value.uri, ...mimeType, text: value.text } };
  }
  if (typeof value.uri === 'string' && typeof value.name === 'string' && keys.every((k) => LINK_KEYS.has(k))) {
    const block: McpContentBlock = { type: 'resource_link', uri: value.uri, name: value.name };
    for (const [to, from, type] of LINK_OPTIONAL) if (typeof value[from] === type) block[to] = value[from];
    return block;
  }
  return undefined;
}

export function binaryBlock(data: string, mimeType: string): McpContentBlock | undefined {
  const kind = MEDIA_RE.exec(mimeType)?.[1];
  return kind ? { type: kind, data, mimeType } : undefined;
}

/**
 * `x-mcp` with the part's payload put back (else its own), kept to MCP's
 * members of the right type; undefined when it is no block MCP defines.
 */
function blockFromCarried(carried: unknown, part: Record<string, unknown>): McpContentBlock | undefined {
  if (!isPlainObject(carried)) return undefined;
  const text = typeof part.text === 'string' ? part.text : typeof carried.text === 'string' ? carried.text : undefined;
  const data = typeof part.data === 'string' ? part.data : typeof carried.data === 'string' ? carried.data : undefined;
  let out: McpContentBlock;
  switch (carried.type) {
    case 'text':
      if (text === undefined) return undefined;
      out = { type: 'text', text };
      break;
    case 'image':
    case 'audio':
      if (data === undefined || typeof carried.mimeType !== 'string') return undefined;
      out = { type: carried.type, data, mimeType: carried.mimeType };
      break;
    case 'resource_link': {
      if (typeof carried.uri !== 'string' || typeof carried.name !== 'string') return undefined;
      out = {
        type: 'resource_link',
        uri: carried.uri,
        name: carried.name,
        ...typed(carried, ['title', 'description', 'mimeType'], 'string'),
        ...typed(carried, ['size'], 'number'),
      };
      const icons = Array.isArray(carried.icons) ? carried.icons.flatMap((i) => (isPlainObject(i) && typeof i.src === 'string' ? [iconOf(i)] : [])) : [];
      if (icons.length) out.icons = icons;
      break;
    }
    case 'resource': {
      const resource = isPlainObject(carried.resource) ? carried.resource : {};
      const resourceText = typeof part.text === 'string' ? part.text : typeof resource.text === 'string' ? resource.text : undefined;
      const blob = typeof part.data === 'string' ? part.data : typeof resource.blob === 'string' ? resource.blob : undefined;
      if (typeof resource.uri !== 'string' || (resourceText === undefined && blob === undefined)) return undefined;
      const contents: JsonObject = {
        ...typed(resource, ['uri', 'mimeType'], 'string'),
        ...(resourceText !== undefined ? { text: resourceText } : { blob: blob! }),
      };
      if (isPlainObject(resource._meta)) contents._meta = resource._meta as JsonObject;
      out = { type: 'resource', resource: contents };
      break;
    }
    default:
      return undefined;
  }
  const annotations = annotationsOf(carried.annotations);
  if (annotations) out.annotations = annotations;
  if (isPlainObject(carried._meta)) out._meta = carried._meta as JsonObject;
  return out;
}

/** The members of `from` named in `keys` that have `type`. */
function typed(from: Record<string, unknown>, keys: readonly string[], type: 'string' | 'number'): JsonObject {
  const out: JsonObject = {};
  for (const k of keys) if (typeof from[k] === type) out[k] = from[k] as string | number;
  return out;
}

function iconOf(icon: Record<string, unknown>): JsonObject {
  const out = typed(icon, ['src', 'mimeType', 'theme'], 'string');
  if (Array.isArray(icon.sizes) && icon.sizes.every((s) => typeof s === 'string')) out.sizes = icon.sizes;
  return out;
}

/** MCP Annotations: `audience` (user/assistant), `priority` in [0, 1], `lastModified`; undefined when none is well-formed. */
function annotationsOf(value: unknown): JsonObject | undefined {
  if (!isPlainObject(value)) return undefined;
  const out: JsonObject = typed(value, ['lastModified'], 'string');
  if (Array.isArray(value.audience) && value.audience.every((r) => r === 'user' || r === 'assistant')) out.audience = value.audience as string[];
  if (typeof value.priority === 'number' && value.priority >= 0 && value.priority <= 1) out.priority = value.priority;
  return Object.keys(out).length ? out : undefined;
}
