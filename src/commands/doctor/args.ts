/** The doctor's command line: its usage text and its own flags, taken out of the bridge's or oxp-server's (loadConfig checks those). */
import { UsageError } from '../../config/load.js';
import { isPlainObject, type JsonObject } from '../../core/json.js';
import { MCP_REVISIONS, newestRevision } from '../../core/mcp-versions.js';

/** The doctor's own flags, as `moreFlags` of its command line (a typo of one is suggested like a bridge flag's). */
export const DOCTOR_FLAGS = ['url', 'token', 'call', 'args'] as const;

export const DOCTOR_USAGE = `Usage: mcp-oxp-bridge doctor [bridge options] [--token TOKEN] [--call TOOL [--args JSON]]
       mcp-oxp-bridge doctor --url http://HOST:PORT/mcp [--token TOKEN] [--call TOOL [--args JSON]]
       mcp-oxp-bridge doctor oxp-server [oxp-server options] [--call TOOL_ID [--args JSON]]

Checks a bridge end to end, one line per step (✓ passed, ✗ failed with the
reason and what to do): the configuration, each upstream, the tools as each
MCP revision (${MCP_REVISIONS.join(', ')}) lists them, and one tool call if asked.

  (no --url)       the configured bridge: the same options, environment and
                   config file as the bridge itself (see mcp-oxp-bridge --help);
                   it is started privately on a loopback port for the checks
  --url URL        a running bridge's MCP endpoint instead
  oxp-server       the configured oxp-server (also chosen by a config file with
                   oxpServer.enabled): its options and OXP_SERVER_* variables,
                   each MCP server connected, GET /tools, and --call TOOL_ID as
                   an OXP client calls it; started privately on a loopback port
  --token TOKEN    a caller's bearer token (prefer MCP_DOCTOR_TOKEN: flags show in ps);
                   with --url it is sent to the bridge; without, it is resolved to
                   its principal as the bridge would, and every tool is listed with
                   the access rule that lets that caller see and call it, or not
  --call TOOL      also call this tool (as ${newestRevision()})
  --args JSON      its arguments, a JSON object (default {})
  --help, -h, --version

Exit code: 0 all checks passed, 1 a check failed, 2 a usage error.
`;

export interface DoctorArgs {
  url?: string;
  token?: string;
  call?: string;
  args: JsonObject;
  rest: string[];
  help: boolean;
  version: boolean;
}

const OWN_FLAGS = new Set<string>(DOCTOR_FLAGS);

/** Takes the doctor's own flags out of argv; the rest are the bridge's (loadConfig checks them). */
export function parseDoctorArgs(argv: readonly string[], env: NodeJS.ProcessEnv): DoctorArgs {
  const own: Record<string, string> = {};
  const rest: string[] = [];
  let help = false;
  let version = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const m = /^--([a-z-]+)(?:=(.*))?$/s.exec(arg);
    if (arg === '--help' || arg === '-h') help = true;
    else if (arg === '--version') version = true;
    else if (m && OWN_FLAGS.has(m[1]!)) {
      const value = m[2] ?? argv[++i];
      if (value === undefined) throw new UsageError(`--${m[1]} needs a value`);
      own[m[1]!] = value;
    } else rest.push(arg);
  }
  let args: JsonObject = {};
  if (own.args !== undefined) {
    if (own.call === undefined) throw new UsageError('--args needs --call TOOL');
    let parsed: unknown;
    try {
      parsed = JSON.parse(own.args);
    } catch {
      throw new UsageError(`--args ${JSON.stringify(own.args)} is not JSON; give an object, e.g. --args '{"a": 1}'`);
    }
    if (!isPlainObject(parsed)) throw new UsageError('--args must be a JSON object, e.g. --args \'{"a": 1}\'');
    args = parsed as JsonObject;
  }
  if (own.url !== undefined) {
    if (!/^https?:\/\/[^\s]+$/i.test(own.url))
      throw new UsageError(`--url ${JSON.stringify(own.url)}: expected an http(s) URL such as http://127.0.0.1:8080/mcp`);
    if (rest.length) throw new UsageError(`--url checks a running bridge: bridge options (${rest.join(' ')}) apply only without --url`);
  }
  const token = own.token ?? (env.MCP_DOCTOR_TOKEN || undefined);
  return { ...(own.url ? { url: own.url } : {}), ...(token ? { token } : {}), ...(own.call ? { call: own.call } : {}), args, rest, help, version };
}
