/**
 * Config file hot reload: the file is polled (robust against editors that
 * replace files and against Kubernetes ConfigMap symlink swaps, which
 * fs.watch misses); a change is loaded exactly as at start-up (flags and
 * environment still win) and applied. A bad file is rejected with a log line
 * and the running configuration stays (and `onRejected` is told, for the audit trail).
 */
import { unwatchFile, watchFile } from 'node:fs';
import type { Logger } from '../platform/log.js';
import { ConfigError, loadConfig, type BridgeConfig, type CommandSpec } from './load.js';

/** `command`: the subcommand's settings the process was started with (oxp-server), so flags are read as at start-up. */
export function watchConfigFile(
  file: string,
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  apply: (config: BridgeConfig) => Promise<string[]>,
  log: Logger,
  intervalMs = 1000,
  onRejected?: () => void,
  command?: CommandSpec,
): () => void {
  let chain = Promise.resolve();
  const onChange = (curr: { mtimeMs: number }, prev: { mtimeMs: number }) => {
    if (curr.mtimeMs === prev.mtimeMs) return;
    // Reloads run one after another, in the order the changes were seen.
    chain = chain.then(async () => {
      try {
        const loaded = loadConfig(argv, env, command);
        if (typeof loaded === 'string') return;
        await apply(loaded.config);
      } catch (error) {
        const message = error instanceof ConfigError ? error.message : error instanceof Error ? error.message : String(error);
        log.error({ file, err: message }, 'configuration file rejected; the running configuration stays');
        onRejected?.();
      }
    });
  };
  watchFile(file, { interval: intervalMs, persistent: false }, onChange);
  return () => unwatchFile(file, onChange);
}
