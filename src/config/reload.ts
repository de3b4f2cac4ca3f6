/**
 * Config file hot reload: the file is polled (robust against editors that
 * replace files and against Kubernetes ConfigMap symlink swaps, which
 * fs.watch misses); a change is loaded exactly as at start-up (flags and
 * environment still win) and applied. A bad file is rejected with a log line
 * and the running configuration stays (and `onRejected` is told, for the audit trail).
 */
import { stat, unwatchFile, watchFile } from 'node:fs';
import type { Logger } from '../platform/log.js';
import { ConfigError, loadConfig, type BridgeConfig, type CommandSpec } from './load.js';

export interface ConfigWatch {
  file: string;
  /**
   * The file's modification time when it was read at start-up (LoadedConfig.fileMtimeMs). watchFile's first look is
   * its baseline, so a change made between the read and that look (start-up takes seconds) would never be seen.
   */
  loadedMtimeMs: number | undefined;
  argv: readonly string[];
  env: NodeJS.ProcessEnv;
  apply: (config: BridgeConfig) => Promise<string[]>;
  log: Logger;
  intervalMs?: number;
  onRejected?: () => void;
  /** The subcommand's settings the process was started with (oxp-server), so flags are read as at start-up. */
  command?: CommandSpec | undefined;
}

export function watchConfigFile(watch: ConfigWatch): () => void {
  const { file, argv, env, apply, log, onRejected, command } = watch;
  let seenMtimeMs = watch.loadedMtimeMs;
  let chain = Promise.resolve();
  const reload = async () => {
    try {
      const loaded = loadConfig(argv, env, command);
      if (typeof loaded === 'string') return;
      await apply(loaded.config);
    } catch (error) {
      const message = error instanceof ConfigError ? error.message : error instanceof Error ? error.message : String(error);
      log.error({ file, err: message }, 'configuration file rejected; the running configuration stays');
      onRejected?.();
    }
  };
  const seen = (mtimeMs: number) => {
    if (mtimeMs === seenMtimeMs) return;
    seenMtimeMs = mtimeMs;
    // Reloads run one after another, in the order the changes were seen.
    chain = chain.then(reload);
  };
  const onChange = (curr: { mtimeMs: number }) => seen(curr.mtimeMs);
  watchFile(file, { interval: watch.intervalMs ?? 1000, persistent: false }, onChange);
  // The first look, against the time read at start-up (watchFile only compares its own looks).
  if (seenMtimeMs !== undefined) stat(file, (error, stats) => seen(error ? 0 : stats.mtimeMs));
  return () => unwatchFile(file, onChange);
}
