/**
 * The `oxp-server` subcommand's configuration: its flags and environment
 * variables (loaded by config/load.ts like every other setting, validated
 * against the `oxpServer` section of the config schema), and the upstream
 * entries they describe.
 */
import { ConfigError, type CommandSpec, type Setting } from './load.js';
import { splitCommandLine } from '../core/command-line.js';
import { isPlainObject, type JsonObject } from '../core/json.js';
import type { OxpToolPolicy } from '../core/mcp-to-oxp-names.js';
import type { OxpServerUpstreamConfig } from './types.js';

/** How to reach one MCP server: Streamable HTTP or HTTP+SSE at a URL, or a stdio child (what reverse/client/ connects to). */
export type McpTarget =
  | { kind: 'http'; url: string; transport: 'auto' | 'streamable-http' | 'sse'; headers?: Record<string, string> }
  | { kind: 'stdio'; command: string; args: readonly string[]; env?: Record<string, string>; cwd?: string };

/** One MCP server the oxp-server serves, as configured (`oxpServer.upstreams[]`). */
export type UpstreamConfig = OxpServerUpstreamConfig;

type ToolSettings = { version?: string; requirements?: JsonObject };
const POLICY_KEYS = new Set(['allow', 'deny', 'rename', 'descriptions']);

/** The upstream's tool policy (`tools.allow|deny|rename|descriptions`), as the schema validated it. */
export function policyOf(upstream: UpstreamConfig): OxpToolPolicy | undefined {
  const t = upstream.tools;
  if (!t || !Object.keys(t).some((k) => POLICY_KEYS.has(k))) return undefined;
  return {
    ...(t.allow ? { allow: t.allow } : {}),
    ...(t.deny ? { deny: t.deny } : {}),
    ...(t.rename ? { rename: t.rename } : {}),
    ...(t.descriptions ? { descriptions: t.descriptions } : {}),
  };
}

/** Per MCP tool name: its configured version and requirements (every `tools` key but the policy's). */
export function perToolSettings(upstream: UpstreamConfig): [string, ToolSettings][] {
  return Object.entries(upstream.tools ?? {}).filter(([k]) => !POLICY_KEYS.has(k)) as [string, ToolSettings][];
}

export type { OxpServerConfig } from './types.js';

const TOOLKIT_RE = /^[A-Za-z0-9_]{1,32}$/;

/**
 * `[TOOLKIT=]VALUE`: the toolkit prefix is what comes before the first `=`
 * when that looks like a name (no space, slash or colon), and must then be a
 * valid toolkit: a clear error instead of a misread URL or command.
 */
function withToolkit(raw: string, flag: string): { toolkit?: string; rest: string } {
  const m = /^([^=\s/:'"]+)=(.*)$/s.exec(raw);
  if (!m) return { rest: raw };
  if (!TOOLKIT_RE.test(m[1]!)) {
    throw new ConfigError(
      `--${flag} ${JSON.stringify(raw)}: the toolkit name ${JSON.stringify(m[1])} may only use letters, digits and _ (at most 32), e.g. ${JSON.stringify(m[1]!.replace(/[^A-Za-z0-9_]/g, '_').slice(0, 32))}`,
    );
  }
  if (m[2] === '') throw new ConfigError(`--${flag} ${JSON.stringify(raw)}: nothing after "${m[1]}="`);
  return { toolkit: m[1]!, rest: m[2]! };
}

/** `--mcp-url [TOOLKIT=]URL` */
export function parseUrlFlag(raw: string): UpstreamConfig {
  const { toolkit, rest } = /^https?:\/\//i.test(raw) ? { rest: raw } : withToolkit(raw, 'mcp-url');
  if (!/^https?:\/\/[^\s]+$/i.test(rest)) throw new ConfigError(`--mcp-url ${JSON.stringify(raw)}: expected [TOOLKIT=]URL with an http:// or https:// URL`);
  return { ...(toolkit ? { toolkit } : {}), url: rest };
}

/** `--mcp-command "[TOOLKIT=]CMD ARGS"` */
export function parseCommandFlag(raw: string): UpstreamConfig {
  const { toolkit, rest } = withToolkit(raw, 'mcp-command');
  return { ...(toolkit ? { toolkit } : {}), command: rest };
}

/** How to reach one configured upstream. */
export function targetOf(upstream: UpstreamConfig): McpTarget {
  if (upstream.url)
    return { kind: 'http', url: upstream.url, transport: upstream.transport ?? 'auto', ...(upstream.headers ? { headers: upstream.headers } : {}) };
  let command = upstream.command!;
  let args = upstream.args;
  if (!args) {
    const words = splitCommandLine(command);
    if (!Array.isArray(words)) throw new ConfigError(`oxpServer.upstreams: cannot run ${JSON.stringify(command)}: ${words.error}`);
    [command, ...args] = words as [string, ...string[]];
  }
  return { kind: 'stdio', command, args, ...(upstream.env ? { env: upstream.env } : {}), ...(upstream.cwd ? { cwd: upstream.cwd } : {}) };
}

/**
 * A name for logs: the toolkit, else where the server is, without what may
 * carry credentials (a URL's user info and query, a command's arguments).
 */
export function upstreamLabel(upstream: UpstreamConfig): string {
  if (upstream.toolkit) return upstream.toolkit;
  if (upstream.url) {
    const url = new URL(upstream.url);
    return `${url.origin}${url.pathname}`;
  }
  const target = targetOf(upstream);
  return target.kind === 'stdio' ? target.command : '?';
}

const SETTINGS: readonly Setting[] = [
  { path: ['logLevel'], flag: 'log-level', env: 'LOG_LEVEL' },
  { path: ['oxpServer', 'host'], flag: 'host', env: 'OXP_SERVER_HOST' },
  { path: ['oxpServer', 'port'], flag: 'port', env: 'OXP_SERVER_PORT' },
  { path: ['oxpServer', 'upstreams'], flag: 'mcp-url', repeatable: true, parse: parseUrlFlag },
  { path: ['oxpServer', 'upstreams'], flag: 'mcp-command', repeatable: true, parse: parseCommandFlag },
  { path: ['oxpServer', 'apiKeys'], flag: 'api-key', env: 'OXP_SERVER_API_KEYS', list: true, repeatable: true },
  { path: ['oxpServer', 'jwtSecret'], flag: 'jwt-secret', env: 'OXP_SERVER_JWT_SECRET' },
  { path: ['oxpServer', 'jwtAudiences'], flag: 'jwt-audience', env: 'OXP_SERVER_JWT_AUDIENCES', list: true, repeatable: true },
  { path: ['oxpServer', 'allowUnauthenticated'], flag: 'allow-unauthenticated', env: 'OXP_SERVER_ALLOW_UNAUTHENTICATED' },
  { path: ['oxpServer', 'connectTimeoutMs'], flag: 'connect-timeout-ms', env: 'OXP_SERVER_CONNECT_TIMEOUT_MS' },
  { path: ['oxpServer', 'callTimeoutMs'], flag: 'call-timeout-ms', env: 'OXP_SERVER_CALL_TIMEOUT_MS' },
  { path: ['oxpServer', 'taskCallTimeoutMs'], flag: 'task-call-timeout-ms', env: 'OXP_SERVER_TASK_CALL_TIMEOUT_MS' },
  { path: ['oxpServer', 'refreshSeconds'], flag: 'refresh-seconds', env: 'OXP_SERVER_REFRESH_SECONDS' },
  { path: ['http', 'drainDelaySeconds'], flag: 'drain-delay-seconds', env: 'OXP_SERVER_DRAIN_DELAY_SECONDS' },
  { path: ['console', 'enabled'], flag: 'console', env: 'OXP_SERVER_CONSOLE' },
  { path: ['audit', 'sink'], flag: 'audit-sink', env: 'OXP_SERVER_AUDIT_SINK' },
  { path: ['audit', 'path'], flag: 'audit-file', env: 'OXP_SERVER_AUDIT_FILE' },
];

const USAGE = `Usage: mcp-oxp-bridge oxp-server [options]

Serves the tools of MCP servers to OXP 1.0 clients: GET /health, GET /tools,
POST /tools/call. Each MCP server is a toolkit; its tools get OXP ids
Toolkit.Tool@x.y.z.

Options (each also settable by the environment variable shown, or in the
oxpServer section of the config file):
  --config PATH                    YAML or JSON config file          BRIDGE_CONFIG
  --mcp-url [TOOLKIT=]URL          a remote MCP server (repeatable)
  --mcp-command "[TOOLKIT=]CMD ARGS"
                                   a local MCP server over stdio (repeatable)
  --host HOST                      listen address (127.0.0.1)        OXP_SERVER_HOST
  --port PORT                      listen port (8090)                OXP_SERVER_PORT
  --api-key KEY                    accepted OXP-API-Key (repeatable) OXP_SERVER_API_KEYS (comma-separated)
  --jwt-secret SECRET              HS256 secret of JWT bearers       OXP_SERVER_JWT_SECRET
  --jwt-audience AUD               allowed JWT aud (repeatable)      OXP_SERVER_JWT_AUDIENCES
  --allow-unauthenticated true     serve off loopback without auth   OXP_SERVER_ALLOW_UNAUTHENTICATED
  --connect-timeout-ms MS          MCP server connect (15000)        OXP_SERVER_CONNECT_TIMEOUT_MS
  --call-timeout-ms MS             one tool call (300000)            OXP_SERVER_CALL_TIMEOUT_MS
  --task-call-timeout-ms MS        a call run as a task (3600000)    OXP_SERVER_TASK_CALL_TIMEOUT_MS
  --refresh-seconds S              tool list refresh period (60)     OXP_SERVER_REFRESH_SECONDS
  --drain-delay-seconds S          serve after SIGTERM (5 k8s/1/0)   OXP_SERVER_DRAIN_DELAY_SECONDS
  --console true|false             operator console /console (true)  OXP_SERVER_CONSOLE
  --audit-file PATH                audit trail, JSON lines (off)     OXP_SERVER_AUDIT_FILE
  --audit-sink off|stdout|file     audit trail sink (file if a path) OXP_SERVER_AUDIT_SINK
  --log-level LEVEL                fatal..trace, silent (info)       LOG_LEVEL
  --help, -h, --version
Prefer the environment for keys and secrets: command-line flags show in ps.
Without --api-key or --jwt-secret the server only listens on loopback
unless --allow-unauthenticated true.
`;

export const OXP_SERVER_COMMAND: CommandSpec = { settings: SETTINGS, usage: USAGE, name: 'mcp-oxp-bridge oxp-server' };

/**
 * Whether a config file's contents start the oxp-server when no subcommand is named (`oxpServer.enabled: true`): the
 * values the schema's validator coerces to true count too (`"true"`, 1), so a file it starts is one chosen here.
 */
export function enablesOxpServer(fromFile: Record<string, unknown>): boolean {
  const enabled = isPlainObject(fromFile.oxpServer) ? fromFile.oxpServer.enabled : undefined;
  return enabled === true || enabled === 'true' || enabled === 1;
}
