/**
 * The one line a person reads when a command starts (on stderr, besides the JSON log, when stderr is a terminal):
 * what it serves, where its clients reach it, the console, and what it serves from.
 *
 *   mcp-oxp-bridge: serving the demo toolkit (6 tools) to MCP clients at http://127.0.0.1:8080/mcp — console http://127.0.0.1:8080/console
 */

/** One OXP upstream of the bridge as it stands once started (its first catalog load has ended, either way). */
export interface UpstreamAtStart {
  name: string;
  url: string;
  ready: boolean;
  tools: number;
  /** The OXP server said this many of its own tool servers had not listed their tools yet. */
  pending?: number | undefined;
  lastError?: string | undefined;
}

/** An address without what may carry credentials (user info, query). */
function shown(url: string): string {
  if (!URL.canParse(url)) return url;
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
}

/** An upstream's catalog as it stands: a catalog (still growing, when its server said so) or none yet, with why. */
function tools(u: UpstreamAtStart): string {
  if (!u.ready) return `no catalog yet: ${u.lastError ?? 'not loaded'}; retrying`;
  if (u.pending) return `${u.tools} tools so far: ${u.pending} of its tool servers ${u.pending === 1 ? 'has' : 'have'} not listed yet; retrying`;
  return `${u.tools} tools`;
}

/** ` — console http://…/console` for an HTTP endpoint whose console is on. */
function consoleOf(url: string | undefined, on: boolean): string {
  return url && on ? ` — console ${new URL('/console', url).href}` : '';
}

/** The forward command's line. */
export function bridgeStartLine(start: { mcpUrl?: string | undefined; console: boolean; demo: boolean; upstreams: UpstreamAtStart[] }): string {
  const [first] = start.upstreams;
  const what =
    start.demo && first
      ? `the demo toolkit (${tools(first)})`
      : start.upstreams.length === 1 && first
        ? `the OXP server ${shown(first.url)} (${tools(first)})`
        : `${start.upstreams.length} OXP servers (${start.upstreams.map((u) => `${u.name} at ${shown(u.url)}: ${tools(u)}`).join('; ')})`;
  const where = start.mcpUrl ? `at ${start.mcpUrl}` : 'over stdio';
  return `mcp-oxp-bridge: serving ${what} to MCP clients ${where}${consoleOf(start.mcpUrl, start.console)}`;
}

/** One MCP server of the oxp-server once its first connection attempt has ended (either way). */
export interface McpServerAtStart {
  /** As its tools name it (the toolkit), or where it is while it has never answered. */
  label: string;
  connected: boolean;
  tools: number;
  lastError?: string | undefined;
}

function mcpTools(u: McpServerAtStart): string {
  return u.connected ? `${u.tools} tools` : `not reachable yet: ${u.lastError ?? 'no answer'}; retrying`;
}

/** The oxp-server's line, once each MCP server's first connection attempt has ended: each by the name its tools carry. */
export function oxpServerStartLine(start: { url: string; console: boolean; upstreams: McpServerAtStart[] }): string {
  const [first] = start.upstreams;
  const what =
    start.upstreams.length === 1 && first
      ? `the MCP server ${shown(first.label)} (${mcpTools(first)})`
      : `${start.upstreams.length} MCP servers (${start.upstreams.map((u) => `${shown(u.label)}: ${mcpTools(u)}`).join('; ')})`;
  return `mcp-oxp-bridge oxp-server: serving ${what} to OXP clients at ${start.url}${consoleOf(start.url, start.console)}`;
}
