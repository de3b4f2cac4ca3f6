/**
 * Configuration from flags, environment and a config file — in that order of
 * precedence over the schema's defaults — validated once against
 * CONFIG_SCHEMA. A bad value fails fast with the key, where it came from, and
 * what is allowed.
 */
import { statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { closestName } from '../core/closest-name.js';
import { configKeyTree, validateConfig } from './generated/config-validator.js';
import type { BridgeConfig } from './types.js';
import { ConfigError, UsageError } from './errors.js';
import { checkHeaderValues } from './header-values.js';
import { readConfigFile } from './config-file.js';
import { deepAssign, describeErrors, markSources, setPath, sourceOf, type Source } from './key-sources.js';

export type { BridgeConfig } from './types.js';
export { ConfigError, UsageError } from './errors.js';

export interface Setting {
  path: string[];
  flag?: string;
  env?: string;
  list?: boolean;
  /**
   * A repeatable flag: every occurrence adds `parse(value)` to the array at
   * `path`, in command-line order (settings sharing a path share the array).
   */
  repeatable?: boolean;
  parse?: (raw: string) => unknown;
}

/** What a (sub)command accepts: its settings and its --help text. */
export interface CommandSpec {
  settings: readonly Setting[];
  usage: string;
  /** How a person types it (`mcp-oxp-bridge oxp-server`): usage errors point to its --help. Default `mcp-oxp-bridge`. */
  name?: string;
  /** Flags the command takes besides its settings' (doctor's own): a typo of one is suggested too. */
  moreFlags?: readonly string[];
  /** Words that may come first instead of a flag (the subcommands): a typo of one is suggested. */
  subcommands?: readonly string[];
}

/** Every key settable from the command line or environment. Secrets are env/file only (flags show in `ps`). */
export const SETTINGS: readonly Setting[] = [
  { path: ['transport'], flag: 'transport', env: 'MCP_TRANSPORT' },
  { path: ['host'], flag: 'host', env: 'MCP_HOST' },
  { path: ['port'], flag: 'port', env: 'MCP_PORT' },
  { path: ['logLevel'], flag: 'log-level', env: 'LOG_LEVEL' },
  { path: ['upstream', 'url'], flag: 'oxp-url', env: 'OXP_URL' },
  { path: ['upstream', 'apiKey'], env: 'OXP_API_KEY' },
  { path: ['upstream', 'apiKeyHeader'], flag: 'oxp-api-key-header', env: 'OXP_API_KEY_HEADER' },
  { path: ['upstream', 'bearerToken'], env: 'OXP_BEARER_TOKEN' },
  { path: ['upstream', 'jwtSecret'], env: 'OXP_JWT_SECRET' },
  { path: ['upstream', 'jwtAudience'], flag: 'oxp-jwt-audience', env: 'OXP_JWT_AUDIENCE' },
  { path: ['upstream', 'connectTimeoutMs'], flag: 'connect-timeout-ms', env: 'OXP_CONNECT_TIMEOUT_MS' },
  { path: ['upstream', 'callTimeoutMs'], flag: 'call-timeout-ms', env: 'OXP_CALL_TIMEOUT_MS' },
  { path: ['catalog', 'refreshSeconds'], flag: 'catalog-refresh-seconds', env: 'OXP_CATALOG_REFRESH_SECONDS' },
  { path: ['catalog', 'pageSize'], flag: 'page-size', env: 'MCP_PAGE_SIZE' },
  { path: ['http', 'allowedHosts'], flag: 'allowed-hosts', env: 'MCP_ALLOWED_HOSTS', list: true },
  { path: ['http', 'allowedOrigins'], flag: 'allowed-origins', env: 'MCP_ALLOWED_ORIGINS', list: true },
  { path: ['http', 'sessionSecret'], env: 'MCP_SESSION_SECRET' },
  { path: ['http', 'metricsToken'], env: 'MCP_METRICS_TOKEN' },
  { path: ['http', 'metricsTokenFile'], env: 'MCP_METRICS_TOKEN_FILE' },
  { path: ['http', 'fastPath'], flag: 'fast-path', env: 'MCP_FAST_PATH' },
  { path: ['http', 'drainDelaySeconds'], flag: 'drain-delay-seconds', env: 'MCP_DRAIN_DELAY_SECONDS' },
  { path: ['console', 'enabled'], flag: 'console', env: 'MCP_CONSOLE' },
  { path: ['audit', 'sink'], flag: 'audit-sink', env: 'MCP_AUDIT_SINK' },
  { path: ['audit', 'path'], flag: 'audit-file', env: 'MCP_AUDIT_FILE' },
  { path: ['requirements', 'userId'], flag: 'user-id', env: 'OXP_USER_ID' },
  { path: ['auth', 'mode'], flag: 'auth-mode', env: 'MCP_AUTH_MODE' },
  { path: ['auth', 'tokens'], env: 'MCP_AUTH_TOKENS', list: true },
  { path: ['auth', 'tokensFile'], flag: 'auth-tokens-file', env: 'MCP_AUTH_TOKENS_FILE' },
  { path: ['auth', 'oauth', 'issuer'], flag: 'oauth-issuer', env: 'MCP_OAUTH_ISSUER' },
  { path: ['auth', 'oauth', 'audience'], flag: 'oauth-audience', env: 'MCP_OAUTH_AUDIENCE' },
  { path: ['auth', 'oauth', 'jwksUrl'], flag: 'oauth-jwks-url', env: 'MCP_OAUTH_JWKS_URL' },
  { path: ['auth', 'oauth', 'resourceUrl'], flag: 'oauth-resource-url', env: 'MCP_OAUTH_RESOURCE_URL' },
  { path: ['auth', 'allowUnauthenticated'], flag: 'allow-unauthenticated', env: 'MCP_ALLOW_UNAUTHENTICATED' },
  { path: ['requirements', 'authorizationHeaderPrefix'], env: 'OXP_AUTHORIZATION_HEADER_PREFIX' },
];

export interface LoadedConfig {
  config: BridgeConfig;
  /** Where the config file was read from, if any. */
  file?: string;
  /** The file's modification time, taken just before it was read: the reload watch starts from it (src/config/reload.ts). */
  fileMtimeMs?: number;
  /** The command whose settings were applied: the one given, or the one the config file chose (see CommandChoice). */
  command: CommandSpec;
}

/**
 * Which command's settings apply: one given outright (a subcommand on the command line), or chosen by what the config
 * file holds (`oxpServer.enabled` selects the oxp-server without its subcommand: its flags and variables must then
 * apply exactly as with the subcommand — API keys from OXP_SERVER_API_KEYS above all).
 */
export type CommandChoice = CommandSpec | ((fromFile: Record<string, unknown>) => CommandSpec | undefined);

export const USAGE = `Usage: mcp-oxp-bridge [options]
       mcp-oxp-bridge oxp-server [options]   (the other direction: see oxp-server --help)
       mcp-oxp-bridge doctor [options]       (checks a configured or running bridge: see doctor --help)

Serves the tools of an OXP tool server to MCP clients (Streamable HTTP or stdio).
Without --oxp-url it serves the embedded demo toolkit.

Options (each also settable by the environment variable shown, or in the config file):
  --config PATH                 YAML or JSON config file            BRIDGE_CONFIG
  --oxp-url URL                 OXP server base URL                 OXP_URL
  --transport http|stdio        MCP transport (default http)        MCP_TRANSPORT
  --host HOST                   HTTP listen address (127.0.0.1)     MCP_HOST
  --port PORT                   HTTP listen port (8080)             MCP_PORT
  --log-level LEVEL             fatal..trace, silent (info)         LOG_LEVEL
  --oxp-api-key-header NAME     header for OXP_API_KEY              OXP_API_KEY_HEADER
  --oxp-jwt-audience AUD        aud of minted JWTs                  OXP_JWT_AUDIENCE
  --connect-timeout-ms MS       upstream connect timeout (10000)    OXP_CONNECT_TIMEOUT_MS
  --call-timeout-ms MS          whole tool-call deadline (300000)   OXP_CALL_TIMEOUT_MS
  --catalog-refresh-seconds S   tool list refresh period (300)      OXP_CATALOG_REFRESH_SECONDS
  --page-size N                 tools per tools/list page (500)     MCP_PAGE_SIZE
  --allowed-hosts A,B           accepted Host names                 MCP_ALLOWED_HOSTS
  --allowed-origins A,B         accepted Origin host names          MCP_ALLOWED_ORIGINS
  --user-id ID                  OXP user_id for tools that need it  OXP_USER_ID
  --auth-mode MODE              none|bearer|oauth (unset: derived)  MCP_AUTH_MODE
  --auth-tokens-file PATH       bearer tokens, one per line         MCP_AUTH_TOKENS_FILE
  --oauth-issuer URL            OAuth: expected iss                 MCP_OAUTH_ISSUER
  --oauth-audience AUD          OAuth: expected aud                 MCP_OAUTH_AUDIENCE
  --oauth-jwks-url URL          OAuth: issuer JWKS                  MCP_OAUTH_JWKS_URL
  --oauth-resource-url URL      OAuth: this endpoint's public URL   MCP_OAUTH_RESOURCE_URL
  --allow-unauthenticated true  serve beyond loopback without auth  MCP_ALLOW_UNAUTHENTICATED
  --drain-delay-seconds S       serve after SIGTERM (5 k8s/1/0)     MCP_DRAIN_DELAY_SECONDS
  --fast-path true|false        deprecated, ignored (one pipeline)  MCP_FAST_PATH
  --console true|false          operator console at /console (true) MCP_CONSOLE
  --audit-file PATH             audit trail, JSON lines (off)       MCP_AUDIT_FILE
  --audit-sink off|stdout|file  audit trail sink (file if a path)   MCP_AUDIT_SINK
  --help, -h, --version
Secrets, from the environment or the config file only:
  OXP_API_KEY, OXP_BEARER_TOKEN, OXP_JWT_SECRET, MCP_SESSION_SECRET, MCP_AUTH_TOKENS,
  MCP_METRICS_TOKEN (or MCP_METRICS_TOKEN_FILE), OXP_SECRET_<ID> (tool secrets; or requirements.secrets in the config file)
`;

// CONFIG_SCHEMA's validator, precompiled by scripts/generate-validators.ts: compiling it here was a large share of start-up
// (bench/README.md#what-was-changed-and-what-it-did, item 4).
const validate = validateConfig;

/** The forward command's settings and usage: the default when no subcommand is given and the file chooses none. */
export const FORWARD_COMMAND: CommandSpec = { settings: SETTINGS, usage: USAGE, subcommands: ['oxp-server', 'doctor'] };

export function loadConfig(argv: readonly string[], env: NodeJS.ProcessEnv, choice: CommandChoice = FORWARD_COMMAND): LoadedConfig | 'help' | 'version' {
  // The file is read before the command line is parsed when it may choose the command: the flags are that command's.
  const chosenByFile = typeof choice === 'function';
  const early = chosenByFile && !asksForHelpOrVersion(argv) ? fileNamedBy(argv, env) : undefined;
  const earlyMtimeMs = early ? mtimeOf(early) : undefined;
  const fromFile = early ? readConfigFile(early, givenBy(argv)) : undefined;
  // Without a file, the chooser sees an empty one (doctor's chooses its own command then).
  const command = typeof choice === 'function' ? (choice(fromFile ?? {}) ?? FORWARD_COMMAND) : choice;
  const { values, tokens } = parseCommandLine(argv, command);
  if (values.help) return 'help';
  if (values.version) return 'version';

  // Layered lowest first, each over the one before: the file, the environment, flags, then repeatable flags.
  const sources = new Map<string, Source>();
  const merged: Record<string, unknown> = {};
  const file = typeof values.config === 'string' ? values.config : env.BRIDGE_CONFIG || undefined;
  const fileMtimeMs = file === early ? earlyMtimeMs : file ? mtimeOf(file) : undefined;
  if (file) {
    const contents = file === early && fromFile ? fromFile : readConfigFile(file, typeof values.config === 'string' ? '--config' : 'BRIDGE_CONFIG');
    deepAssign(merged, contents);
    markSources(contents, [], `config file ${file}`, sources);
  }
  applyEnvironmentAndFlags(merged, sources, command.settings, env, values);
  applyRepeatableFlags(merged, sources, command.settings, tokens);
  if (!validate(merged)) throw new ConfigError(describeErrors(validate.errors ?? [], sources, configKeyTree));
  const config = merged as unknown as BridgeConfig;
  checkHeaderValues(config, (path) => sourceOf(path, sources));
  return file ? { config, file, fileMtimeMs, command } : { config, command };
}

/** A file's modification time, or 0 when it cannot be read (readConfigFile then says why). */
function mtimeOf(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/** `--help`, `-h` or `--version` anywhere: answered without reading a config file (which may not exist). */
function asksForHelpOrVersion(argv: readonly string[]): boolean {
  return argv.some((a) => a === '--help' || a === '-h' || a === '--version');
}

/** Which names the config file for a message about it: the flag when the command line has one, else the variable. */
function givenBy(argv: readonly string[]): string {
  return argv.some((a) => a === '--config' || a.startsWith('--config=')) ? '--config' : 'BRIDGE_CONFIG';
}

/** The config file the command line (`--config PATH`, `--config=PATH`; the last wins, as parseArgs does) or BRIDGE_CONFIG names. */
function fileNamedBy(argv: readonly string[], env: NodeJS.ProcessEnv): string | undefined {
  let named: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (arg === '--config') named = argv[++i];
    else if (arg.startsWith('--config=')) named = arg.slice('--config='.length);
  }
  return named || env.BRIDGE_CONFIG || undefined;
}

type FlagValues = Record<string, string | boolean | string[] | undefined>;
type FlagToken = { kind: string; name?: string; value?: string | undefined };

/** The command line, strictly: an unknown flag or a positional argument is a usage error of one line (usageProblem). */
function parseCommandLine(argv: readonly string[], command: CommandSpec): { values: FlagValues; tokens: FlagToken[] } {
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = {
    config: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean' },
  };
  for (const s of command.settings) if (s.flag) options[s.flag] = s.repeatable ? { type: 'string', multiple: true } : { type: 'string' };
  try {
    const parsed = parseArgs({ args: [...argv], options, allowPositionals: false, strict: true, tokens: true });
    return { values: parsed.values as FlagValues, tokens: parsed.tokens };
  } catch (error) {
    throw new UsageError(usageProblem(error, command, Object.keys(options)));
  }
}

/**
 * A command-line mistake in one line: what is wrong, the closest known flag or subcommand when it looks like a typo
 * of one ("did you mean --oxp-url?"), and where the options are listed (not the whole usage: it buried the line).
 */
function usageProblem(error: unknown, command: CommandSpec, flags: string[]): string {
  const e = error as { code?: string; message?: string };
  const quoted = /'([^']*)'/.exec(e.message ?? '')?.[1] ?? '';
  const help = `run ${command.name ?? 'mcp-oxp-bridge'} --help for the options`;
  if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const known = [...flags, ...(command.moreFlags ?? [])];
    const guess = quoted.startsWith('--') ? closestName(quoted.slice(2), known) : undefined;
    return `unknown option ${quoted}${guess ? ` (did you mean --${guess}?)` : ''}; ${help}`;
  }
  if (e.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    const guess = command.subcommands ? closestName(quoted, command.subcommands) : undefined;
    const what = guess ? ` (did you mean ${command.name ?? 'mcp-oxp-bridge'} ${guess}?)` : ': options are --name value pairs';
    return `unexpected argument ${JSON.stringify(quoted)}${what}; ${help}`;
  }
  if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const flag = quoted.split(' ')[0] ?? quoted;
    return /argument missing/.test(e.message ?? '') ? `${flag} needs a value; ${help}` : `${flag} takes no value; ${help}`;
  }
  return `${e.message ?? String(error)}; ${help}`;
}

/** The environment's settings, then the flags' over them (an empty value sets nothing); each key remembers where it came from. */
function applyEnvironmentAndFlags(
  merged: Record<string, unknown>,
  sources: Map<string, Source>,
  settings: readonly Setting[],
  env: NodeJS.ProcessEnv,
  values: FlagValues,
): void {
  for (const layer of ['env', 'flag'] as const) {
    for (const s of settings) {
      if (layer === 'flag' && s.repeatable) continue;
      const raw = layer === 'env' ? (s.env ? env[s.env] : undefined) : s.flag ? values[s.flag] : undefined;
      if (typeof raw !== 'string' || raw === '') continue;
      const value = s.list
        ? raw
            .split(',')
            .map((x) => x.trim())
            .filter(Boolean)
        : raw;
      setPath(merged, s.path, value);
      sources.set(s.path.join('.'), layer === 'env' ? `environment variable ${s.env}` : `flag --${s.flag}`);
    }
  }
}

/** Repeatable flags, in command-line order; they replace what the file or environment set at their path. */
function applyRepeatableFlags(merged: Record<string, unknown>, sources: Map<string, Source>, settings: readonly Setting[], tokens: FlagToken[]): void {
  const repeated = new Map<string, unknown[]>();
  for (const token of tokens) {
    const s = settings.find((x) => x.repeatable && x.flag === token.name);
    if (token.kind !== 'option' || !s || token.value === undefined) continue;
    const key = s.path.join('.');
    if (!repeated.has(key)) {
      repeated.set(key, []);
      setPath(merged, s.path, repeated.get(key));
      sources.set(key, `flag --${s.flag}`);
    }
    repeated.get(key)!.push(s.parse ? s.parse(token.value) : token.value);
  }
}
