/**
 * Names for the MCP → OXP direction, pure: toolkits, the Tool part of ids,
 * OXP `name`s, and which MCP tools are published at all.
 *
 * Invariants:
 * - a `name` is the MCP name (after a configured rename) whenever it matches
 *   ^[A-Za-z0-9_-]{1,64}$ and no earlier tool holds it; an id's Tool part is
 *   that name with every character outside [A-Za-z0-9_] replaced by `_`;
 * - a hash is appended only on an actual collision, and who keeps the plain
 *   form is settled from the catalog alone: upstream order, then tools whose
 *   name needed no replacement, then MCP name order;
 * - allow/deny use the MCP direction's glob matcher (merge.ts).
 */
import { compareStrings, hash8, MCP_NAME_RE, uniqueName } from './catalog.js';
import { isPlainObject } from './json.js';
import type { McpTool } from './mcp-wire.js';
import { toolSelector, type ToolPolicy } from './merge.js';
import { ownValue } from './mcp-to-oxp-policy.js';

export const MAX_TOOLKIT = 32;
const MAX_TOOL_PART = 64;
const MAX_NAME = 64;
/** Words that name every MCP server and so tell the model nothing. */
const NOISE_WORDS = new Set(['mcp', 'server', 'servers', 'modelcontextprotocol']);

/** The policy this direction supports (no fixed arguments: an MCP server's schema is its own). */
export type OxpToolPolicy = Pick<ToolPolicy, 'allow' | 'deny' | 'rename' | 'descriptions'>;

/**
 * A toolkit name from a server name, for upstreams configured without one:
 * the last path segment, without the words every MCP server carries, in
 * PascalCase (`mcp-servers/everything` → `Everything`, `secure-filesystem-server`
 * → `SecureFilesystem`); `Mcp` when nothing is left.
 */
export function toolkitFromServerName(serverName: string | undefined): string {
  const last = (serverName ?? '').split('/').pop() ?? '';
  const words = last.split(/[^A-Za-z0-9]+/).filter((w) => w && !NOISE_WORDS.has(w.toLowerCase()));
  const pascal = words
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('')
    .slice(0, MAX_TOOLKIT);
  if (pascal) return pascal;
  const cleaned = (serverName ?? '')
    .replace(/[^A-Za-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, MAX_TOOLKIT);
  return cleaned || 'Mcp';
}

/**
 * Toolkits of every upstream, in upstream order: configured ones as they are
 * (sharing one on purpose offers several versions of one id); a derived one
 * that an earlier upstream already uses gets the upstream's position appended.
 */
export function assignToolkits(listings: readonly { upstream: number; toolkit?: string; serverName?: string }[]): Map<number, string> {
  const out = new Map<number, string>();
  const used = new Set<string>();
  const ordered = [...listings].sort((a, b) => a.upstream - b.upstream);
  for (const l of ordered) if (l.toolkit) used.add(l.toolkit);
  for (const l of ordered) {
    let toolkit = l.toolkit;
    if (!toolkit) {
      const base = toolkitFromServerName(l.serverName);
      toolkit = used.has(base) ? `${base.slice(0, MAX_TOOLKIT - 4)}_${l.upstream + 1}` : base;
      used.add(toolkit);
    }
    out.set(l.upstream, toolkit);
  }
  return out;
}

/**
 * Whether the tool must be called as a task (2025-11-25 `execution.taskSupport: "required"`). `optional` tools are
 * called plainly: an OXP call waits for its answer either way, and a plain call costs one request instead of a poll loop.
 */
export function requiresTask(tool: McpTool): boolean {
  return isPlainObject(tool.execution) && tool.execution.taskSupport === 'required';
}

/** Why an MCP tool is not published (undefined: it is); `toolTasks`: its server takes task-augmented calls. */
export function unpublishableReason(tool: McpTool, toolTasks: boolean): string | undefined {
  if (requiresTask(tool) && !toolTasks)
    return 'it requires task augmentation (execution.taskSupport "required"), and its server does not declare task-augmented tools/call (capabilities.tasks.requests.tools.call)';
  return undefined;
}

export interface PublishedTool {
  tool: McpTool;
  /** The name the tool is published under: its MCP name, or the configured rename. */
  wanted: string;
  /** `wanted` with every character outside [A-Za-z0-9_] replaced (before collision handling). */
  part: string;
}

/** The tools of one upstream that its policy publishes, in claim order (exact names first, then by name). */
export function publishedTools(tools: readonly McpTool[], policy: OxpToolPolicy | undefined, toolTasks: boolean): PublishedTool[] {
  const selected = toolSelector(policy ?? {});
  const out: PublishedTool[] = [];
  for (const tool of tools) {
    if (unpublishableReason(tool, toolTasks) || !selected([tool.name])) continue;
    const wanted = ownValue(policy?.rename, tool.name) ?? tool.name;
    const part = wanted.replace(/[^A-Za-z0-9_]/g, '_').slice(0, MAX_TOOL_PART) || `tool_${hash8(wanted)}`;
    out.push({ tool, wanted, part });
  }
  return out.sort(
    (a, b) => Number(b.part === b.wanted) - Number(a.part === a.wanted) || compareStrings(a.wanted, b.wanted) || compareStrings(a.tool.name, b.tool.name),
  );
}

/** The Tool part of an id: the plain part when free in its slot, else hashed with the upstream and MCP name. */
export function claimPart(p: PublishedTool, upstream: number, taken: Set<string>): string {
  const part = uniqueName(p.part, `${upstream}/${p.tool.name}`, taken, MAX_TOOL_PART);
  taken.add(part);
  return part;
}

/**
 * The OXP `name` of a new id: the wanted name when valid and free; else the
 * toolkit-prefixed form (`Other_echo`); else a hashed form.
 */
export function claimName(wanted: string, part: string, toolkit: string, key: string, taken: Set<string>): string {
  const base = MCP_NAME_RE.test(wanted) ? wanted : part;
  const prefixed = `${toolkit}_${base}`;
  const name = !taken.has(base)
    ? base
    : MCP_NAME_RE.test(prefixed) && !taken.has(prefixed)
      ? prefixed
      : uniqueName(prefixed.slice(0, MAX_NAME), key, taken, MAX_NAME);
  taken.add(name);
  return name;
}
