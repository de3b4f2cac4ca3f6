/** The config file's reload watch as the process runs it: each reload, applied or rejected, leaves an audit record. */
import { auditedReloads } from '../calls/audit/reloads.js';
import type { AuditSink } from '../calls/audit/sink.js';
import type { BridgeConfig, CommandSpec, LoadedConfig } from '../config/load.js';
import { watchConfigFile } from '../config/reload.js';
import type { Logger } from '../platform/log.js';

/** A started server (the bridge or the oxp-server), as a reload needs it. */
export interface Reloadable {
  audit: AuditSink;
  applyConfig(next: BridgeConfig): Promise<string[]>;
}

/** Watches the file the process started from; returns what stops the watch. `command`: the subcommand started (oxp-server). */
export function watchForReloads(server: Reloadable, loaded: LoadedConfig & { file: string }, argv: string[], log: Logger, command?: CommandSpec): () => void {
  const reloads = auditedReloads(server.audit, loaded.file, loaded.config, (next) => server.applyConfig(next));
  const { file, fileMtimeMs: loadedMtimeMs } = loaded;
  return watchConfigFile({ file, loadedMtimeMs, argv, env: process.env, log, apply: reloads.apply, onRejected: reloads.rejected, command });
}
