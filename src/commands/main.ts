/** The commands: `mcp-oxp-bridge [options]`, `mcp-oxp-bridge oxp-server [options]` and `mcp-oxp-bridge doctor [options]` (loaded by cli.ts). */
import { openAuditSinks } from '../calls/audit/sink.js';
import { ConfigError, FORWARD_COMMAND, loadConfig, type BridgeConfig, type CommandChoice, type CommandSpec, type LoadedConfig } from '../config/load.js';
import { watchForReloads } from './watch-reloads.js';
import { listeningOf, shutdownTimes, type ShutdownTimes } from '../config/shutdown.js';
import { createProcessLogger, type ProcessLog } from '../platform/log.js';
import { startBridge, type RunningBridge } from './forward.js';
import { bridgeStartLine, oxpServerStartLine } from './start-line.js';
import { VERSION } from '../platform/version.js';
import { enablesOxpServer, OXP_SERVER_COMMAND } from '../config/oxp-server-settings.js';
import { startTracing, TracingConfigError, type Tracer } from '../platform/telemetry/tracer.js';

/** How long after the grace period a shutdown that still hangs is cut short. */
const HARD_EXIT_MARGIN_MS = 750;

/** The commands' log, once made: every exit writes out what it still holds first. */
let logs: ProcessLog | undefined;

/** Exits after an orderly stop: what the log and the audit trail hold is written first (after a write in progress, so in order). */
async function exitAfterFlush(code: number): Promise<never> {
  await Promise.all([logs?.flush(), ...openAuditSinks().map((sink) => sink.flush())]);
  process.exit(code);
}

/** Exits now, writing what the log and the audit trail hold with a blocking write: for paths where nothing else may run. */
function exitNow(code: number): never {
  logs?.flushSync();
  flushAuditSync();
  process.exit(code);
}

/**
 * An error nothing caught (thrown, or a promise rejected with no handler) ends the process as Node would (exit
 * code 1), but reported as one JSON log line rather than Node's plain-text stack amid them, written at once with
 * every line still buffered before it (the process is in an unknown state: no waiting on the event loop).
 */
function onFatal(log: ProcessLog['log']) {
  return (error: unknown, origin: string) => {
    log.fatal({ err: error, origin }, 'uncaught error: exiting');
    exitNow(1);
  };
}

/** A listen address already taken is the operator's to fix, like a bad setting: one line naming the port and how to change it. */
function portInUse(error: unknown, portEnv: string): string | undefined {
  const e = error as (NodeJS.ErrnoException & { port?: unknown; address?: unknown }) | undefined;
  if (e?.code !== 'EADDRINUSE') return undefined;
  const where = typeof e.address === 'string' ? `${e.address.includes(':') ? `[${e.address}]` : e.address}:${String(e.port)}` : `port ${String(e.port)}`;
  return `cannot listen on ${where}: the port is already in use; choose another with --port or ${portEnv}`;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === 'doctor') return runDoctorCommand(argv.slice(1));
  // `oxp-server`: OXP clients → bridge → MCP servers, by its subcommand or chosen by oxpServer.enabled in the config
  // file — then with its own flags and variables, exactly as with the subcommand (OXP_SERVER_API_KEYS above all).
  const explicit = argv[0] === 'oxp-server';
  const args = explicit ? argv.slice(1) : argv;
  const loaded = loadOrExit(args, explicit ? OXP_SERVER_COMMAND : chooseByConfigFile);
  // Asked for, so the command's output: stdout (`--help | less`), exit 0.
  if (loaded === 'help' || loaded === 'version') {
    endQuietlyOnClosedStdout();
    return void process.stdout.write(loaded === 'help' ? (explicit ? OXP_SERVER_COMMAND : FORWARD_COMMAND).usage : `${VERSION}\n`);
  }
  const subcommand = loaded.command === OXP_SERVER_COMMAND ? OXP_SERVER_COMMAND : undefined;

  logs = createProcessLogger(loaded.config.logLevel);
  const log = logs.log;
  const fatal = onFatal(log);
  process.on('uncaughtException', fatal);
  process.on('unhandledRejection', (reason) => fatal(reason, 'unhandledRejection'));
  if (loaded.file) log.info({ file: loaded.file }, 'configuration file loaded');
  const config = loaded.config;
  // A file that enables the oxp-server chose that command (and its settings) above: nothing else may start it.
  const oxpServer = subcommand !== undefined;
  // OpenTelemetry: off unless OTEL_* asks for it (src/platform/telemetry/tracing-settings.ts); when off, no OpenTelemetry module loads.
  const tracing = await startTracing(process.env, log, oxpServer ? 'mcp-oxp-bridge-oxp-server' : 'mcp-oxp-bridge', VERSION).catch((error: unknown) => {
    throw error instanceof TracingConfigError ? new ConfigError(error.message) : error;
  });
  // A drain delay longer than the grace is a configuration error: said before anything listens.
  const times = shutdownTimes(config.http, listeningOf(config, oxpServer));
  const started = await startOrExit(oxpServer, loaded, args, log, subcommand);
  const stop = shutdown(times, started, tracing, log);
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  onAuditSignals(log);
  // Start-up has been logged (the listening line is what scripts and tests wait for): out now, not within a second,
  // and only now that the signals are handled: a SIGTERM sent on seeing it finds its handler.
  if (process.stderr.isTTY) {
    // A person at a terminal also gets one plain line saying where to go; a log reader (stderr a pipe or a file)
    // gets JSON lines only. After the log lines written so far, so it is the last thing on the screen.
    logs.flushSync();
    void Promise.resolve(started.startLine).then((line) => {
      if (line === undefined) return; // stopped before the oxp-server's MCP servers answered
      logs?.flushSync();
      process.stderr.write(`${line}\n`);
    });
  } else void logs.flush();
  if (config.transport === 'stdio') {
    // The transport closes once stdin has ended and what was read before is answered (bounded by the grace
    // period), or on its own (e.g. a line over its size bound): a bridge nobody can talk to exits.
    if (!started.stdioClosed) process.stdin.on('end', () => stop('stdin closed'));
    void started.stdioClosed?.then(({ failure }) => {
      if (!failure) return stop('stdin closed');
      log.error({ reason: failure }, 'the MCP stdio transport closed: exiting');
      stop('stdio transport failed', 1);
    });
  }
}

/** `doctor`: its own command line and output; loaded only for this subcommand, like oxp-server. */
async function runDoctorCommand(argv: string[]): Promise<void> {
  endQuietlyOnClosedStdout();
  const { runDoctor } = await import('./doctor/doctor.js');
  const code = await runDoctor(
    argv,
    process.env,
    (line) => process.stdout.write(`${line}\n`),
    (line) => process.stderr.write(`${line}\n`),
  );
  return void process.stdout.write('', () => process.exit(code));
}

/**
 * Where stdout is the command's output (doctor's report, --help, --version), a reader that stops reading
 * (`doctor | head -1`) ends the command as it ends `cat` or `seq`: at once, without a word (not an EPIPE stack
 * trace), with the status a process killed by SIGPIPE has (128 + 13), which `set -o pipefail` sees as such.
 */
function endQuietlyOnClosedStdout(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(141);
    throw error;
  });
}

/** Without a subcommand, a config file with `oxpServer.enabled: true` chooses the oxp-server and its settings. */
function chooseByConfigFile(fromFile: Record<string, unknown>): CommandSpec | undefined {
  return enablesOxpServer(fromFile) ? OXP_SERVER_COMMAND : undefined;
}

/** The configuration, or exit 2 with the reason: a bad setting is the operator's to fix, not a crash. */
function loadOrExit(args: string[], choice: CommandChoice): ReturnType<typeof loadConfig> {
  try {
    return loadConfig(args, process.env, choice);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`mcp-oxp-bridge: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}

/** What the command started, as shutdown and the stdio transport need it, and the line that tells a person. */
interface Started {
  /** The oxp-server's comes once its MCP servers have answered (undefined: it stopped first). */
  startLine: string | Promise<string | undefined>;
  running: {
    drain?: (delayMs: number, deadlineMs: number) => Promise<number>;
    callsInFlight(): Promise<number>;
    abandon(settleMs: number): Promise<void>;
    close(): Promise<void>;
  };
  stopWatching?: (() => void) | undefined;
  stdioClosed?: Promise<{ failure?: string }> | undefined;
}

/** Starts the command's server (the bridge watching its config file, or the oxp-server); a port in use exits 2 with one line. */
async function startOrExit(
  oxpServer: boolean,
  loaded: LoadedConfig,
  args: string[],
  log: ProcessLog['log'],
  subcommand: CommandSpec | undefined,
): Promise<Started> {
  try {
    if (oxpServer) {
      // Loaded only for this subcommand: it brings the MCP client SDK, which the main direction never needs.
      const { startOxpServer } = await import('./reverse.js');
      const server = await startOxpServer(loaded.config, log, VERSION);
      // Once each MCP server's first attempt has ended: until its server answers, an upstream has no name but where it is.
      const startLine = server
        .firstConnections()
        .then((upstreams) => upstreams && oxpServerStartLine({ url: server.url, console: loaded.config.console.enabled, upstreams }));
      if (!loaded.file) return { running: server, startLine };
      const stopWatching = watchForReloads(server, { ...loaded, file: loaded.file }, args, log, subcommand);
      return { running: server, stopWatching, startLine };
    }
    const bridge = await startBridge(loaded.config, log);
    const startLine = bridgeStartLine(bridgeAtStart(bridge, loaded.config));
    if (!loaded.file) return { running: bridge, stdioClosed: bridge.stdioClosed, startLine };
    const stopWatching = watchForReloads(bridge, { ...loaded, file: loaded.file }, args, log);
    return { running: bridge, stdioClosed: bridge.stdioClosed, stopWatching, startLine };
  } catch (error) {
    const inUse = portInUse(error, oxpServer ? 'OXP_SERVER_PORT' : 'MCP_PORT');
    if (!inUse) throw error;
    logs?.flushSync();
    process.stderr.write(`mcp-oxp-bridge: ${inUse}\n`);
    process.exit(2);
  }
}

/** What the start line says of a started bridge: its endpoint, console, and each upstream's first catalog load. */
function bridgeAtStart(running: RunningBridge, config: BridgeConfig): Parameters<typeof bridgeStartLine>[0] {
  const upstreams = Object.entries(running.bridge.status.upstreams).map(([name, status]) => ({
    name,
    url: running.bridge.upstreams.get(name)?.settings.url ?? '?',
    ready: status.ready,
    tools: status.tools,
    pending: status.pending,
    lastError: status.lastError,
  }));
  return { mcpUrl: running.mcpUrl, console: config.console.enabled, demo: !config.upstream.url && !config.upstreams?.length, upstreams };
}

/**
 * The one orderly stop, whatever asks for it first (a signal, stdin closed): drain (readiness 503, the drain delay on
 * SIGTERM, the requests in flight; src/config/shutdown.ts), close, export spans, exit. Only SIGTERM, what orchestrators
 * send, waits the drain delay: SIGINT is a person at a terminal, and stdin's end a host that has gone.
 */
function shutdown(times: ShutdownTimes, started: Started, tracing: Tracer, log: ProcessLog['log']): (signal: string, code?: number) => void {
  let stopping = false;
  const abandon = abandonment(started, log);
  return (signal, code = 0) => {
    // A second Ctrl-C during the drain: the person will not wait for it.
    if (stopping && signal === 'SIGINT') return abandon();
    if (stopping) return;
    stopping = true;
    const { graceMs } = times;
    const delayMs = signal === 'SIGTERM' ? times.delayMs : 0;
    log.info({ signal, grace_ms: graceMs, drain_delay_ms: delayMs }, 'shutting down: draining in-flight requests');
    if (signal === 'SIGINT' && process.stderr.isTTY) sayStopping(started, graceMs);
    // The promise docs/production.md makes ("Shutdown, probes and scaling"): gone by the grace period plus
    // 0.75 s, whatever clients or upstreams do. Closing should take milliseconds; this is the last resort if
    // anything hangs.
    setTimeout(() => {
      log.error({ grace_ms: graceMs }, 'shutdown did not finish after the grace period: exiting now');
      exitNow(1);
    }, graceMs + HARD_EXIT_MARGIN_MS).unref();
    started.stopWatching?.();
    const running = started.running;
    (running.drain ? running.drain(delayMs, graceMs) : Promise.resolve(0))
      .then(() => running.close())
      .then(() => tracing.shutdown().catch(() => undefined)) // exports the spans still queued
      .then(
        () => exitAfterFlush(code),
        (error: unknown) => {
          log.error({ err: error }, 'shutdown failed while closing: exiting');
          return exitAfterFlush(1);
        },
      );
  };
}

/** The first Ctrl-C at a terminal, in one plain line: what the stop waits for, how long at most, and the way out. */
function sayStopping(started: Started, graceMs: number): void {
  void started.running.callsInFlight().then((calls) => {
    logs?.flushSync();
    const waits = calls === 0 ? 'no call in flight' : `waiting for ${calls} call${calls === 1 ? '' : 's'} in flight (up to ${graceMs / 1000} s)`;
    process.stderr.write(`mcp-oxp-bridge: Ctrl-C: stopping, ${waits}; Ctrl-C again to exit now\n`);
  });
}

/** How long the calls a second SIGINT abandons have to record themselves once aborted (it takes milliseconds). */
const ABANDON_SETTLE_MS = 2_000;

/**
 * The stop that waits no more (a second SIGINT during the drain): says how many calls it abandons (a log line, and a
 * line for the person at the terminal), closes the clients' connections at once — which aborts each call still
 * running, so each ends as a client's cancellation does, with its log line and audit record — and exits with 130, as
 * interrupted, the log and the audit trail written out first.
 */
function abandonment(started: Started, log: ProcessLog['log']): () => void {
  let abandoning = false;
  return () => {
    if (abandoning) return;
    abandoning = true;
    void started.running
      .callsInFlight()
      .then((calls) => {
        log.warn({ signal: 'SIGINT', abandoned_calls: calls }, 'second SIGINT during the drain: exiting now, the calls in flight are cancelled');
        if (process.stderr.isTTY) {
          logs?.flushSync();
          const n = `${calls} call${calls === 1 ? '' : 's'} in flight`;
          process.stderr.write(`mcp-oxp-bridge: second Ctrl-C: exiting now, without waiting for ${n} (each logged and audited as cancelled)\n`);
        }
        return started.running.abandon(ABANDON_SETTLE_MS);
      })
      .then(
        () => exitAfterFlush(130),
        () => exitAfterFlush(130),
      );
  };
}

/** Every audit sink open, written out now with a blocking write (each gives up on a failed write: none hangs). */
function flushAuditSync(): void {
  for (const sink of openAuditSinks()) sink.flushSync();
}

/**
 * The audit trail is written out at every exit (exitAfterFlush, exitNow; the `exit` event is the net under any
 * other), and its file reopened on SIGHUP, logrotate's signal. Only with a file: elsewhere SIGHUP keeps Node's
 * default (the process ends), as before the audit trail.
 */
function onAuditSignals(log: ProcessLog['log']): void {
  process.on('exit', flushAuditSync);
  if (!openAuditSinks().some((sink) => sink.kind === 'file')) return;
  process.on('SIGHUP', () => {
    for (const sink of openAuditSinks()) sink.reopen();
    log.info('SIGHUP: audit file reopened');
  });
}

main().catch((error: unknown) => {
  logs?.flushSync(); // what was logged before comes first
  flushAuditSync();
  if (error instanceof ConfigError) {
    process.stderr.write(`mcp-oxp-bridge: ${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`mcp-oxp-bridge: fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
