/**
 * Preloaded into a bridge child by bench/tasks.ts (`node --expose-gc --import <this file>`): on each SIGUSR2 the process
 * collects its garbage (two full collections) and writes its `process.memoryUsage()` to `<GC_USAGE_OUT>-<n>.json`,
 * so the bench reads what the live objects hold, not when the collector last ran. Plain JS: the bridge child runs
 * without tsx, as users run it.
 */
import { renameSync, writeFileSync } from 'node:fs';

const out = process.env.GC_USAGE_OUT;
if (out && typeof globalThis.gc === 'function') {
  let n = 0;
  process.on('SIGUSR2', () => {
    globalThis.gc();
    globalThis.gc();
    const file = `${out}-${n++}.json`;
    writeFileSync(`${file}.tmp`, JSON.stringify(process.memoryUsage()));
    renameSync(`${file}.tmp`, file);
  });
}
