/**
 * In-process tools as a ToolSource: what the OXP face (reverse/face/) serves
 * when the bridge embeds the demo toolkit as its own OXP upstream. Kept with
 * the demo rather than the face: it is one of the face's sources, as the MCP
 * upstreams (reverse/bridge/) are the other.
 */
import type { JsonObject } from '../core/json.js';
import { decodeRequirements } from '../core/oxp-decode.js';
import type { ToolRunResult } from '../core/oxp-wire.js';
import type { SourceCall, SourceTool, ToolSource } from '../reverse/face/tool-source.js';

export interface LocalTool {
  /** `Toolkit.Tool`, without version. */
  id: string;
  name: string;
  description: string;
  version: string;
  input_schema: JsonObject;
  output_schema: JsonObject | null;
  requirements?: JsonObject;
  run(input: JsonObject, context: JsonObject | undefined): Promise<ToolRunResult> | ToolRunResult;
}

interface LocalSourceTool extends SourceTool {
  readonly tool: LocalTool;
}

export class LocalToolSource implements ToolSource<LocalSourceTool> {
  private readonly list: readonly LocalSourceTool[];

  constructor(tools: readonly LocalTool[]) {
    this.list = tools.map((tool) => {
      const definition: JsonObject = {
        id: `${tool.id}@${tool.version}`,
        name: tool.name,
        description: tool.description,
        version: tool.version,
        input_schema: tool.input_schema,
        output_schema: tool.output_schema,
      };
      const requirements = decodeRequirements(tool.requirements);
      if (tool.requirements) definition.requirements = tool.requirements;
      return { key: tool.id, version: tool.version, definition, inputSchema: tool.input_schema, tool, ...(requirements ? { requirements } : {}) };
    });
  }

  tools(): readonly LocalSourceTool[] {
    return this.list;
  }

  ready(): boolean {
    return true;
  }

  async call({ tool }: LocalSourceTool, input: JsonObject, call: SourceCall): Promise<ToolRunResult> {
    try {
      return await tool.run(input, call.context);
    } catch (error) {
      return { error: { message: 'The tool failed unexpectedly.', developer_message: error instanceof Error ? error.message : String(error) } };
    }
  }
}
