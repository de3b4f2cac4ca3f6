/**
 * What a forward call runs on besides the bridge's own code, loaded after start-up: undici (the OXP client's pool,
 * call-pool.ts) and ajv with the meta-schemas' validators (input-validator.ts). Loaded by the face's warm-up, or by
 * the first call, which waits for them (Bridge's resolve step) rather than requiring them as installed: bundled into
 * chunks of their own by `npm run build`, they cost about half as much to load (bench/README.md, issue 39).
 */
import type { Logger } from '../../platform/log.js';
import { loadCallPool } from '../client/call-pool.js';
import { loadValidation } from '../../platform/validation/input-validator.js';

let loading: Promise<void> | undefined;
let settled = false;

/** Loads them, once. A failure is logged; calls then go on, each loader requiring its package as installed. */
export function loadCallLibraries(log: Logger): Promise<void> {
  return (loading ??= Promise.all([loadCallPool(), loadValidation()]).then(
    () => void (settled = true),
    (error: unknown) => {
      settled = true;
      log.warn({ err: error instanceof Error ? error.message : String(error) }, 'undici and ajv did not load from their chunks; calls load them as installed');
    },
  ));
}

/** Undefined once they are in (or failed to load); else the load, started if it was not. */
export function callLibrariesPending(log: Logger): Promise<void> | undefined {
  return settled ? undefined : loadCallLibraries(log);
}
