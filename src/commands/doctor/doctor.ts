/**
 * `mcp-oxp-bridge doctor`: checks a bridge end to end and says, step by step,
 * what works and what to do about what does not.
 *
 * - With `--url`: a running bridge — reachable (/healthz), its upstreams
 *   (/readyz), the tools as each MCP revision lists them over real MCP HTTP,
 *   and one tool call if `--call` names one.
 * - Without: the configured bridge — the configuration loaded exactly as the
 *   bridge loads it (flags, environment, config file), then that bridge
 *   started in this process on a private loopback port, each upstream's
 *   catalog loaded, and the same MCP checks against it.
 * - `--token`: who that caller is and what it may call (token-access.ts).
 *
 * Exit code: 0 every check passed, 1 a check failed, 2 the command line is wrong.
 */
import {
  ConfigError,
  loadConfig,
  SETTINGS,
  UsageError,
  type BridgeConfig,
  type CommandChoice,
  type CommandSpec,
  type LoadedConfig,
} from '../../config/load.js';
import { upstreamSettings } from '../../config/upstreams.js';
import { createLogger } from '../../platform/log.js';
import { startBridge, type RunningBridge } from '../forward.js';
import { VERSION } from '../../platform/version.js';
import { InboundAuth, inboundAuthConfig, oauthConfigProblem, unsafeExposure } from '../../forward/face/inbound-auth.js';
import { isLoopbackHost } from '../../platform/net/loopback.js';
import { createReport, type StepReport } from './report.js';
import { credentialsAdvice, isCredentialsRefusal } from './credentials.js';
import { isNotReadyYet, NOT_READY_HINT, pendingNote } from './catalog-hints.js';
import { listAccess, resolveToken, type TokenCaller } from './token-access.js';
import { DOCTOR_FLAGS, DOCTOR_USAGE, parseDoctorArgs, type DoctorArgs } from './args.js';
import { checkOxpServer } from './oxp-server-check.js';
import { taskCapacityNote } from './task-capacity.js';
import { checkMcp, checkRunning } from './running-checks.js';
import { enablesOxpServer, OXP_SERVER_COMMAND } from '../../config/oxp-server-settings.js';

export { DOCTOR_USAGE } from './args.js';

/** The doctor's command line as loadConfig reads what is left of it: the bridge's settings, its own flags suggested too. */
const DOCTOR_COMMAND: CommandSpec = { settings: SETTINGS, usage: DOCTOR_USAGE, name: 'mcp-oxp-bridge doctor', moreFlags: DOCTOR_FLAGS };
/** `doctor oxp-server …`, or a file that selects it: the oxp-server's settings. */
const DOCTOR_OXP_SERVER: CommandSpec = { ...OXP_SERVER_COMMAND, name: 'mcp-oxp-bridge doctor', moreFlags: DOCTOR_FLAGS };

/**
 * Runs the checks; returns the exit code. `write` takes one output line (the report, --help, --version: stdout),
 * `writeError` a usage error's one line (stderr).
 */
export async function runDoctor(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  write: (line: string) => void,
  writeError: (line: string) => void = write,
): Promise<number> {
  let options: DoctorArgs;
  try {
    options = parseDoctorArgs(argv, env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    writeError(`mcp-oxp-bridge doctor: ${error.message}; run mcp-oxp-bridge doctor --help for the options`);
    return 2;
  }
  if (options.help || options.version) {
    write(options.help ? DOCTOR_USAGE.trimEnd() : VERSION);
    return 0;
  }
  const report = createReport(write);
  if (options.url) {
    write(`mcp-oxp-bridge doctor ${VERSION}: checking the running bridge at ${options.url}`);
    await checkRunning(report, { url: options.url, ...(options.token ? { token: options.token } : {}) }, options);
    return report.finish();
  }
  return checkConfigured(report, options, env, write, writeError);
}

async function checkConfigured(
  report: StepReport,
  options: DoctorArgs,
  env: NodeJS.ProcessEnv,
  write: (line: string) => void,
  writeError: (line: string) => void,
): Promise<number> {
  const loaded = loadChecked(report, options, env, write, writeError);
  if (typeof loaded === 'number') return loaded;
  const { config, file } = loaded;
  const fileNote = file ? ` (config file ${file})` : '';
  if (loaded.oxpServer) {
    write(`mcp-oxp-bridge doctor ${VERSION}: checking the configured oxp-server${fileNote}`);
    await checkOxpServer(report, config, env, options);
    return report.finish();
  }
  write(`mcp-oxp-bridge doctor ${VERSION}: checking the configured bridge${fileNote}`);
  const problem = configProblem(config, env);
  if (problem) {
    report.fail('configuration', problem, 'fix the setting named above');
    return report.finish();
  }
  report.pass(`configuration valid (${config.transport} transport${config.transport === 'http' ? ` on ${config.host}:${config.port}` : ''})`);
  const capacity = taskCapacityNote(taskCapacity(config, env));
  if (capacity) report.note(capacity);
  const caller = options.token !== undefined ? await resolveToken(report, config, env, options.token) : undefined;
  if (options.token !== undefined && !caller) return report.finish();

  const keepAuth = caller?.authMode !== undefined && caller.authMode !== 'none';
  const exchanging = tokenExchangeKeys(config);
  if (exchanging.length && !keepAuth)
    report.skip(
      `token exchange (${exchanging.join(', ')})`,
      "it exchanges a caller's OAuth access token: the checks below call without one, with the upstreams' own credentials; pass --token with an access token to exercise it",
    );
  let bridge: RunningBridge;
  try {
    bridge = await startBridge(privateCopy(config, keepAuth), createLogger('silent'), env);
  } catch (error) {
    report.fail('starting the bridge', error instanceof Error ? error.message : String(error));
    return report.finish();
  }
  try {
    await checkStarted(report, bridge, config, options, caller);
  } finally {
    await bridge.close();
  }
  return report.finish();
}

/**
 * The configuration as the command it starts loads it (`doctor oxp-server …`, or a file with `oxpServer.enabled`: the
 * oxp-server's flags and OXP_SERVER_* variables; else the bridge's), or the exit code when it cannot be: 2 for a
 * wrong command line (one line on stderr), else the report's (a configuration error is a failed check).
 */
function loadChecked(
  report: StepReport,
  options: DoctorArgs,
  env: NodeJS.ProcessEnv,
  write: (line: string) => void,
  writeError: (line: string) => void,
): (LoadedConfig & { oxpServer: boolean }) | number {
  const subcommand = options.rest[0] === 'oxp-server';
  const rest = subcommand ? options.rest.slice(1) : options.rest;
  try {
    const loaded = loadAs(rest, env, subcommand ? DOCTOR_OXP_SERVER : (fromFile) => (enablesOxpServer(fromFile) ? DOCTOR_OXP_SERVER : DOCTOR_COMMAND));
    return { ...loaded, oxpServer: loaded.command === DOCTOR_OXP_SERVER };
  } catch (error) {
    if (error instanceof UsageError) {
      writeError(`mcp-oxp-bridge doctor: ${error.message}`);
      return 2;
    }
    if (!(error instanceof ConfigError)) throw error;
    write(`mcp-oxp-bridge doctor ${VERSION}: checking the configured ${subcommand ? 'oxp-server' : 'bridge'}`);
    report.fail('configuration', error.message, 'fix the keys named above (mcp-oxp-bridge --help lists the options)');
    return report.finish();
  }
}

/** `command`: the oxp-server's (`doctor oxp-server`), or chosen by the file as the commands choose (enablesOxpServer). */
function loadAs(argv: readonly string[], env: NodeJS.ProcessEnv, command: CommandChoice): LoadedConfig {
  const loaded = loadConfig(argv, env, command);
  // parseDoctorArgs took --help, -h and --version out of argv: loadConfig never answers them.
  if (typeof loaded === 'string') throw new Error(`unexpected ${loaded}`);
  return loaded;
}

/**
 * The privately started bridge: each upstream's catalog, then (if one loaded) what the token's caller may call and
 * the MCP checks against it (with the token when the bridge kept its authentication for it).
 */
async function checkStarted(report: StepReport, bridge: RunningBridge, config: BridgeConfig, options: DoctorArgs, caller?: TokenCaller): Promise<void> {
  const statuses = Object.entries(bridge.bridge.status.upstreams);
  for (const [name, status] of statuses) {
    const u = bridge.bridge.upstreams.get(name);
    const where = u?.settings.label ? `the ${u.settings.label}` : (u?.settings.url ?? '?');
    if (status.ready) {
      report.pass(`upstream ${name} (${where}): reachable, catalog of ${status.tools} tools decoded`);
      const pending = pendingNote(status.pending);
      if (pending) report.note(pending);
      const unmatched = u?.catalog.unmatchedPolicyKeys ?? [];
      if (unmatched.length)
        report.note(`these keys of its tools policy name no tool it publishes, so they do nothing: ${unmatched.join(', ')} (check them against GET /tools)`);
    } else if (u && isCredentialsRefusal(status.lastError)) report.fail(`upstream ${name} (${where})`, status.lastError!, await credentialsAdvice(u.settings));
    else if (isNotReadyYet(status.lastError)) report.fail(`upstream ${name} (${where})`, status.lastError!, NOT_READY_HINT);
    else
      report.fail(
        `upstream ${name} (${where})`,
        status.lastError ?? 'no catalog loaded',
        'check the URL and credentials, and that the OXP server is running (GET <url>/tools must answer)',
      );
  }
  if (!statuses.some(([, s]) => s.ready)) return report.skip('tools as each MCP revision lists them', 'no upstream catalog loaded');
  if (caller) await listAccess(report, bridge, caller);
  const authenticated = caller && caller.authMode !== 'none' ? { token: options.token! } : {};
  await checkMcp(report, { url: bridge.mcpUrl!, ...authenticated }, options);
}

/** The task bounds and the upstreams' connections (callers are bounded only by a list of static tokens in the configuration). */
function taskCapacity(config: BridgeConfig, env: NodeJS.ProcessEnv) {
  const auth = inboundAuthConfig(config);
  const listed = auth.mode === 'bearer' && !auth.tokensFile && !env.MCP_AUTH_TOKENS ? auth.tokens?.length : undefined;
  const upstreams = upstreamSettings(config, env, `mcp-oxp-bridge/${VERSION}`, 'http://127.0.0.1/');
  return { ...config.tasks, principals: listed, connections: upstreams.map((u) => u.limits.connections) };
}

/** What the bridge would refuse at start-up beyond the schema (credential sources, auth, exposure). */
function configProblem(config: BridgeConfig, env: NodeJS.ProcessEnv): string | undefined {
  try {
    upstreamSettings(config, env, `mcp-oxp-bridge/${VERSION}`, 'http://127.0.0.1/');
    const auth = inboundAuthConfig(config);
    const problem = oauthConfigProblem(auth) ?? (config.transport === 'http' ? unsafeExposure(config.host, auth, isLoopbackHost) : undefined);
    if (problem) return problem;
    new InboundAuth(auth, undefined, env); // reads auth.tokensFile and the named tokens (from env as given)
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * The configured bridge on a private loopback port: HTTP whatever the
 * configured transport, no inbound auth (nothing but this process reaches
 * it) unless a token is checked (then its own, so the checks list what that
 * caller sees), Host/Origin defaults for loopback. Upstreams, credentials,
 * requirements, catalog, access policy and limits stay as configured — but
 * token exchange without the auth it needs (there is no caller token to
 * exchange: the bridge would refuse to start, though the configuration is
 * valid, as configProblem checked on the real one).
 */
function privateCopy(config: BridgeConfig, keepAuth: boolean): BridgeConfig {
  const http = { ...config.http };
  delete http.allowedHosts;
  delete http.allowedOrigins;
  const withoutExchange = <T extends { tokenExchange?: unknown }>(u: T): T => {
    const { tokenExchange: _exchange, ...rest } = u;
    return rest as T;
  };
  return {
    ...config,
    transport: 'http',
    host: '127.0.0.1',
    port: 0,
    logLevel: 'silent',
    auth: keepAuth ? config.auth : { mode: 'none', allowUnauthenticated: false, anonymous: config.auth.anonymous },
    http,
    ...(keepAuth ? {} : { upstream: withoutExchange(config.upstream), ...(config.upstreams ? { upstreams: config.upstreams.map(withoutExchange) } : {}) }),
  };
}

/** Where token exchange is configured: `upstream`, `upstreams[crm]`. */
function tokenExchangeKeys(config: BridgeConfig): string[] {
  return [
    ...(config.upstream.tokenExchange ? ['upstream'] : []),
    ...(config.upstreams ?? []).filter((u) => u.tokenExchange).map((u) => `upstreams[${u.name}]`),
  ];
}
