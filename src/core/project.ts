/**
 * Per-revision projection: fits a newest-shape MCP message to exactly what
 * the peer's negotiated revision defines.
 *
 * Invariants (each pinned by test/golden):
 * - never emits `title`, `outputSchema`, `structuredContent`, `_meta` on tools
 *   or content (an embedded resource's contents too), or `resource_link`
 *   blocks to ≤2025-03-26;
 * - never emits `annotations` or `audio` blocks to 2024-11-05;
 * - never emits `icons` (of tools and resource links) before 2025-11-25,
 *   `execution` (`taskSupport`) other than to 2025-11-25 (2026-07-28 tasks
 *   are an extension without a per-tool flag),
 *   `resultType`/`ttlMs`/`cacheScope` before 2026-07-28;
 * - 2025-06-18/2025-11-25 get non-object output schemas wrapped as
 *   `{type:object, properties:{result}, required:[result]}` and the matching
 *   `structuredContent` as `{result: value}`; 2026-07-28 gets both raw;
 * - copy-on-write: an input that needs no change is returned as is.
 */
import { isPlainObject, type JsonObject, type JsonValue } from './json.js';
import type { RevisionProfile } from './mcp-versions.js';
import type { McpCallToolResult, McpContentBlock, McpListToolsResult, McpTool } from './mcp-wire.js';
import { hasObjectRoot } from './oxp-to-mcp.js';

/** The SEP-2106 wrapper for a non-object output schema root. */
export function wrapOutputSchema(schema: JsonObject): JsonObject {
  return { type: 'object', properties: { result: schema }, required: ['result'] };
}

export function projectTool(tool: McpTool, profile: RevisionProfile): McpTool {
  const { has } = profile;
  const wrap = tool.outputSchema !== undefined && has.outputSchema && !has.anyStructuredRoot && !hasObjectRoot(tool.outputSchema);
  const changes =
    wrap ||
    (tool.title !== undefined && !has.toolTitle) ||
    (tool.outputSchema !== undefined && !has.outputSchema) ||
    (tool.annotations !== undefined && !has.toolAnnotations) ||
    (tool.icons !== undefined && !has.toolIcons) ||
    (tool.execution !== undefined && profile.tasks !== 'core') ||
    (tool._meta !== undefined && !has.toolMeta);
  if (!changes) return tool;

  const out: McpTool = { name: tool.name, inputSchema: tool.inputSchema };
  if (tool.description !== undefined) out.description = tool.description;
  if (has.toolTitle) {
    if (tool.title !== undefined) out.title = tool.title;
  }
  if (has.toolAnnotations) {
    let annotations = tool.annotations;
    // 2025-03-26 has no `title`, but `annotations.title` carries the same meaning.
    if (!has.toolTitle && tool.title !== undefined && annotations?.title === undefined) annotations = { ...annotations, title: tool.title };
    if (annotations !== undefined) out.annotations = annotations;
  }
  if (tool.outputSchema !== undefined && has.outputSchema) out.outputSchema = wrap ? wrapOutputSchema(tool.outputSchema) : tool.outputSchema;
  if (tool.icons !== undefined && has.toolIcons) out.icons = tool.icons;
  if (tool.execution !== undefined && profile.tasks === 'core') out.execution = tool.execution;
  if (tool._meta !== undefined && has.toolMeta) out._meta = tool._meta;
  return out;
}

export function projectListToolsResult(result: McpListToolsResult, profile: RevisionProfile): McpListToolsResult {
  const tools = result.tools.map((t) => projectTool(t, profile));
  const out: McpListToolsResult = { tools };
  if (result.nextCursor !== undefined) out.nextCursor = result.nextCursor;
  if (result._meta !== undefined) out._meta = result._meta;
  if (profile.has.cacheFields) {
    out.ttlMs = result.ttlMs ?? 0;
    out.cacheScope = result.cacheScope ?? 'private';
  }
  if (profile.has.resultType) out.resultType = 'complete';
  return out;
}

/**
 * @param outputSchema the tool's advertised output schema in its newest form
 *   (undefined when the tool declares none): it decides the `{result}` wrap.
 */
export function projectCallToolResult(result: McpCallToolResult, profile: RevisionProfile, outputSchema: JsonObject | undefined): McpCallToolResult {
  const { has } = profile;
  const content = projectContent(result.content, profile);
  const out: McpCallToolResult = { content };
  const structured = projectStructuredContent(result.structuredContent, profile, outputSchema);
  if (structured !== undefined) out.structuredContent = structured;
  if (result.isError !== undefined) out.isError = result.isError;
  if (result._meta !== undefined) out._meta = result._meta;
  if (has.resultType) out.resultType = 'complete';
  return out;
}

function projectStructuredContent(value: JsonValue | undefined, profile: RevisionProfile, outputSchema: JsonObject | undefined): JsonValue | undefined {
  if (value === undefined || !profile.has.structuredContent) return undefined;
  if (profile.has.anyStructuredRoot) return value;
  // 2025 era: the value must be an object, and must match the advertised schema.
  if (outputSchema !== undefined && !hasObjectRoot(outputSchema)) return { result: value };
  return isPlainObject(value) ? value : undefined;
}

function projectContent(blocks: McpContentBlock[], profile: RevisionProfile): McpContentBlock[] {
  let out: McpContentBlock[] | undefined;
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i]!;
    const projected = projectContentBlock(block, profile);
    if (projected !== block && !out) out = blocks.slice(0, i);
    out?.push(projected);
  }
  return out ?? blocks;
}

export function projectContentBlock(block: McpContentBlock, profile: RevisionProfile): McpContentBlock {
  const { has } = profile;
  if (block.type === 'resource_link' && !has.resourceLink) {
    const label = typeof block.name === 'string' ? block.name : 'resource';
    return { type: 'text', text: `${label}: ${String(block.uri)}` };
  }
  if (block.type === 'audio' && !has.audioContent) {
    return { type: 'text', text: `[audio content (${String(block.mimeType)}) omitted: this client's MCP version cannot receive audio]` };
  }
  const stripMeta = block._meta !== undefined && !has.contentMeta;
  const resource = block.type === 'resource' && isPlainObject(block.resource) ? block.resource : undefined;
  const stripResourceMeta = resource?._meta !== undefined && !has.contentMeta;
  const stripIcons = block.icons !== undefined && !has.linkIcons;
  const annotations = block.annotations;
  const stripLastModified = isPlainObject(annotations) && annotations.lastModified !== undefined && !has.lastModifiedAnnotation;
  if (!stripMeta && !stripResourceMeta && !stripIcons && !stripLastModified) return block;
  const copy: McpContentBlock = { ...block };
  if (stripMeta) delete copy._meta;
  if (stripIcons) delete copy.icons;
  if (stripResourceMeta) {
    const { _meta: _dropped, ...rest } = resource;
    copy.resource = rest;
  }
  if (stripLastModified && isPlainObject(annotations)) {
    const { lastModified: _dropped, ...rest } = annotations;
    copy.annotations = rest;
  }
  return copy;
}
