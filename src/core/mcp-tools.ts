/**
 * Screens the tools an MCP server lists before the oxp-server uses them:
 * one malformed or oversized tool is dropped with a reason, never the whole
 * server. The client adapter hands over tools as the server sent them
 * (unchecked), so this is the one place their shape is established.
 *
 * Kept: `name` (a non-empty string, unique), `inputSchema` (an object with
 * `type: "object"` or none, within the schema bounds), `outputSchema` (same
 * bounds), and the optional fields the bridge reads when they have the right
 * type (anything else of theirs is left out rather than trusted).
 */
import { MAX_SCHEMA_DEPTH, schemaBoundProblem } from './bounds.js';
import { isPlainObject, jsonBoundExceeded, type JsonObject, type JsonValue } from './json.js';
import type { McpTool } from './mcp-wire.js';

export interface ScreenedTools {
  tools: McpTool[];
  /** One entry per tool left out: its name (or position) and why. */
  dropped: { name: string; reason: string }[];
}

export function screenMcpTools(raw: readonly unknown[]): ScreenedTools {
  const tools: McpTool[] = [];
  const dropped: ScreenedTools['dropped'] = [];
  const names = new Set<string>();
  raw.forEach((candidate, i) => {
    const name = isPlainObject(candidate) && typeof candidate.name === 'string' && candidate.name !== '' ? candidate.name : `#${i}`;
    const tool = screenTool(candidate);
    if (typeof tool === 'string') dropped.push({ name, reason: tool });
    else if (names.has(tool.name)) dropped.push({ name, reason: 'another tool of this server has the same name' });
    else {
      names.add(tool.name);
      tools.push(tool);
    }
  });
  return { tools, dropped };
}

/** One listed tool → McpTool, or why it cannot be used. */
function screenTool(raw: unknown): McpTool | string {
  if (!isPlainObject(raw)) return 'the tool is not an object';
  if (typeof raw.name !== 'string' || raw.name === '') return 'the tool has no name';
  const input = raw.inputSchema;
  if (!isPlainObject(input)) return 'inputSchema is not an object';
  if (input.type !== undefined && input.type !== 'object') return `inputSchema root type is ${JSON.stringify(input.type)}, not "object"`;
  const inputProblem = schemaBoundProblem(input, 'inputSchema');
  if (inputProblem) return inputProblem;
  const tool: McpTool = { name: raw.name, inputSchema: input as JsonObject };
  if (raw.outputSchema !== undefined) {
    if (!isPlainObject(raw.outputSchema)) return 'outputSchema is not an object';
    const outputProblem = schemaBoundProblem(raw.outputSchema, 'outputSchema');
    if (outputProblem) return outputProblem;
    tool.outputSchema = raw.outputSchema as JsonObject;
  }
  if (typeof raw.title === 'string') tool.title = raw.title;
  if (typeof raw.description === 'string') tool.description = raw.description;
  // Metadata is passed back to the SDK with every call: bounded like a schema.
  if (isPlainObject(raw.annotations) && !jsonBoundExceeded(raw.annotations, MAX_SCHEMA_DEPTH)) tool.annotations = raw.annotations as JsonObject;
  if (isPlainObject(raw._meta) && !jsonBoundExceeded(raw._meta, MAX_SCHEMA_DEPTH)) tool._meta = raw._meta as JsonObject;
  if (Array.isArray(raw.icons) && !jsonBoundExceeded(raw.icons, MAX_SCHEMA_DEPTH)) tool.icons = raw.icons as JsonValue[];
  // Kept: it says whether the tool can be called at all without task augmentation (see unpublishableReason).
  if (isPlainObject(raw.execution) && !jsonBoundExceeded(raw.execution, MAX_SCHEMA_DEPTH)) tool.execution = raw.execution as JsonObject;
  return tool;
}
