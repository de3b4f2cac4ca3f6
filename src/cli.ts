#!/usr/bin/env node
/** Command-line entry: `mcp-oxp-bridge [options]`. */
import './v8-tuning.js'; // first: heap tuning before the rest loads
import { ConfigError, loadConfig, USAGE } from './config/load.js';
import { createLogger } from './log.js';
import { startBridge, VERSION } from './main.js';

async function main(): Promise<void> {
  let loaded;
  try {
    loaded = loadConfig(process.argv.slice(2), process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`mcp-oxp-bridge: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  if (loaded === 'help') return void process.stderr.write(USAGE);
  if (loaded === 'version') return void process.stderr.write(`${VERSION}\n`);

  const log = createLogger(loaded.config.logLevel);
  if (loaded.file) log.info({ file: loaded.file }, 'configuration file loaded');
  const running = await startBridge(loaded.config, log);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    running.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  if (loaded.config.transport === 'stdio') process.stdin.on('end', () => stop('stdin closed'));
}

main().catch((error: unknown) => {
  process.stderr.write(`mcp-oxp-bridge: fatal: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exit(1);
});
