/** A tool an in-process OXP server can serve. */
import type { JsonObject, JsonValue } from '../core/json.js';

export interface ToolErrorWire {
  message: string;
  developer_message?: string;
  can_retry?: boolean;
  additional_prompt_content?: string;
  retry_after_ms?: number;
}

export type ToolRunResult = { value: JsonValue } | { error: ToolErrorWire };

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
