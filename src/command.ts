/** The commands: `mcp-oxp-bridge [options]`, `mcp-oxp-bridge oxp-server [options]` and `mcp-oxp-bridge doctor [options]` (loaded by cli.ts). */
import { ConfigError, loadConfig, USAGE } from './config/load.js';
import { watchConfigFile } from './config/reload.js';
import { createProcessLogger, type ProcessLog } from './log.js';
import { startBridge } from './mcp-server/start.js';
import { VERSION } from './version.js';
import { OXP_SERVER_COMMAND } from './oxp-server/config.js';
import { startTracing } from './telemetry/tracer.js';

/** How long after the grace period a shutdown that still hangs is cut short. */
const HARD_EXIT_MARGIN_MS = 750;

/** The commands' log, once made: every exit writes out what it still holds first. */
let logs: ProcessLog | undefined;

/** Exits after an orderly stop: what the log holds is written first (after a write in progress, so in order). */
async function exitAfterFlush(code: number): Promise<never> {
  await logs?.flush();
  process.exit(code);
}

/** Exits now, writing what the log holds with a blocking write: for paths where nothing else may run. */
function exitNow(code: number): never {
  logs?.flushSync();
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
  if (argv[0] === 'doctor') {
    // Loaded only for this subcommand, like oxp-server.
    const { runDoctor } = await import('./doctor/command.js');
    const code = await runDoctor(argv.slice(1), process.env, (line) => process.stdout.write(`${line}\n`));
    return void process.stdout.write('', () => process.exit(code));
  }
  // `oxp-server`: OXP clients → bridge → MCP servers (also chosen by oxpServer.enabled in the config file).
  const subcommand = argv[0] === 'oxp-server' ? OXP_SERVER_COMMAND : undefined;
  const args = subcommand ? argv.slice(1) : argv;
  let loaded;
  try {
    loaded = loadConfig(args, process.env, subcommand);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`mcp-oxp-bridge: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  if (loaded === 'help') return void process.stderr.write(subcommand?.usage ?? USAGE);
  if (loaded === 'version') return void process.stderr.write(`${VERSION}\n`);

  logs = createProcessLogger(loaded.config.logLevel);
  const log = logs.log;
  const fatal = onFatal(log);
  process.on('uncaughtException', fatal);
  process.on('unhandledRejection', (reason) => fatal(reason, 'unhandledRejection'));
  if (loaded.file) log.info({ file: loaded.file }, 'configuration file loaded');
  const config = loaded.config;
  let running: { drain?: (deadlineMs: number) => Promise<number>; close(): Promise<void> };
  let stopWatching: (() => void) | undefined;
  let stdioClosed: Promise<{ failure?: string }> | undefined;
  const oxpServer = Boolean(subcommand || config.oxpServer.enabled);
  // OpenTelemetry: off unless OTEL_* asks for it (src/telemetry/config.ts); when off, no OpenTelemetry module loads.
  const tracing = await startTracing(process.env, log, oxpServer ? 'mcp-oxp-bridge-oxp-server' : 'mcp-oxp-bridge', VERSION);
  try {
    if (oxpServer) {
      // Loaded only for this subcommand: it brings the MCP client SDK, which the main direction never needs.
      const { startOxpServer } = await import('./oxp-server/server.js');
      const server = await startOxpServer(config, log, VERSION);
      running = server;
      if (loaded.file) stopWatching = watchConfigFile(loaded.file, args, process.env, (next) => server.applyConfig(next), log, undefined, subcommand);
    } else {
      const bridge = await startBridge(config, log);
      running = bridge;
      stdioClosed = bridge.stdioClosed;
      if (loaded.file) stopWatching = watchConfigFile(loaded.file, args, process.env, (next) => bridge.applyConfig(next), log);
    }
  } catch (error) {
    const inUse = portInUse(error, oxpServer ? 'OXP_SERVER_PORT' : 'MCP_PORT');
    if (!inUse) throw error;
    logs.flushSync();
    process.stderr.write(`mcp-oxp-bridge: ${inUse}\n`);
    process.exit(2);
  }
  // Start-up has been logged (the listening line is what scripts and tests wait for): out now, not within a second.
  void logs.flush();

  let stopping = false;
  const stop = (signal: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    const graceMs = config.http.shutdownGraceSeconds * 1000;
    log.info({ signal, grace_ms: graceMs }, 'shutting down: draining in-flight requests');
    // The promise docs/production.md makes ("Shutdown, probes and scaling"): gone by the grace period plus
    // 0.75 s, whatever clients or upstreams do. Closing should take milliseconds; this is the last resort if
    // anything hangs.
    setTimeout(() => {
      log.error({ grace_ms: graceMs }, 'shutdown did not finish after the grace period: exiting now');
      exitNow(1);
    }, graceMs + HARD_EXIT_MARGIN_MS).unref();
    stopWatching?.();
    (running.drain ? running.drain(graceMs) : Promise.resolve(0))
      .then(() => running.close())
      .then(() => tracing.shutdown().catch(() => undefined)) // exports the spans still queued
      .then(
        () => exitAfterFlush(code),
        () => exitAfterFlush(1),
      );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  if (config.transport === 'stdio') {
    // The transport closes once stdin has ended and what was read before is answered (bounded by the grace
    // period), or on its own (e.g. a line over its size bound): a bridge nobody can talk to exits.
    if (!stdioClosed) process.stdin.on('end', () => stop('stdin closed'));
    void stdioClosed?.then(({ failure }) => {
      if (!failure) return stop('stdin closed');
      log.error({ reason: failure }, 'the MCP stdio transport closed: exiting');
      stop('stdio transport failed', 1);
    });
  }
}

main().catch((error: unknown) => {
  logs?.flushSync(); // what was logged before comes first
  if (error instanceof ConfigError) {
    process.stderr.write(`mcp-oxp-bridge: ${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`mcp-oxp-bridge: fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
