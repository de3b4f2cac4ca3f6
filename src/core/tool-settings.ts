/**
 * A tool's own call settings: its upstream's, overridden per tool by the
 * first `toolSettings` entry that matches the tool (its MCP name or its OXP
 * id without version) and sets that key. Pure; resolved once per catalog
 * entry (cached by the caller).
 */
import { globMatch } from './glob.js';

export type TaskSupport = 'forbidden' | 'optional' | 'required';

export interface ToolSettingsEntry {
  readonly tools: readonly string[];
  readonly taskSupport?: TaskSupport;
  readonly callTimeoutMs?: number;
  readonly taskCallTimeoutMs?: number;
}

export interface ToolCallSettings {
  readonly taskSupport: TaskSupport;
  /** Deadline of a plain call's OXP call. */
  readonly callTimeoutMs: number;
  /** Deadline of the OXP call of a task. */
  readonly taskCallTimeoutMs: number;
}

export function resolveToolSettings(
  upstream: ToolCallSettings,
  entries: readonly ToolSettingsEntry[],
  tool: { readonly name: string; readonly oxpId: string },
): ToolCallSettings {
  if (entries.length === 0) return upstream;
  const matching = entries.filter((e) => e.tools.some((p) => globMatch(p, tool.name) || globMatch(p, tool.oxpId)));
  if (matching.length === 0) return upstream;
  return {
    taskSupport: matching.find((e) => e.taskSupport !== undefined)?.taskSupport ?? upstream.taskSupport,
    callTimeoutMs: matching.find((e) => e.callTimeoutMs !== undefined)?.callTimeoutMs ?? upstream.callTimeoutMs,
    taskCallTimeoutMs: matching.find((e) => e.taskCallTimeoutMs !== undefined)?.taskCallTimeoutMs ?? upstream.taskCallTimeoutMs,
  };
}
