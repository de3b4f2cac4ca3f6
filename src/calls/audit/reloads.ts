/** Every configuration reload leaves one audit record: applied, with what changed, or rejected (why is in the log). */
import type { BridgeConfig } from '../../config/types.js';
import { configChanges } from './config-changes.js';
import type { AuditSink } from './sink.js';

/**
 * Wraps the running bridge's `apply` for src/config/reload.ts: `apply` records what it applied, `rejected` is called
 * for a file that did not load or apply. The reason stays out of the record: a YAML error quotes the file's text,
 * which may hold a secret.
 */
export function auditedReloads(audit: AuditSink, file: string, initial: BridgeConfig, apply: (next: BridgeConfig) => Promise<string[]>) {
  let current = initial;
  return {
    apply: async (next: BridgeConfig): Promise<string[]> => {
      const restartRequired = await apply(next);
      audit.reload({ outcome: 'applied', changes: configChanges(current, next), restartRequired, file });
      current = next;
      return restartRequired;
    },
    rejected: (): void => audit.reload({ outcome: 'rejected', file }),
  };
}
