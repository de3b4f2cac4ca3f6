/**
 * Preloaded into a bridge child by bench/heap.ts (`node --import <this file>`): on each SIGUSR2 the process writes
 * its `process.memoryUsage()` (`<HEAP_SNAPSHOT_OUT>-<n>.json`, with the peaks of each figure since the previous
 * signal, sampled every 100 ms) and, unless HEAP_SNAPSHOT_WRITE=off, a heap snapshot (`<…>-<n>.heapsnapshot`, after a
 * full collection, as every snapshot does), then `<…>-<n>.done`, so the bench knows both are whole. Plain JS: the
 * bridge child runs without tsx, as users run it.
 */
import { writeFileSync } from 'node:fs';
import { writeHeapSnapshot } from 'node:v8';

const out = process.env.HEAP_SNAPSHOT_OUT;
if (out) {
  let n = 0;
  let peak = {};
  const sample = () => {
    for (const [k, v] of Object.entries(process.memoryUsage())) peak[k] = Math.max(peak[k] ?? 0, v);
  };
  setInterval(sample, 100).unref();
  process.on('SIGUSR2', () => {
    sample();
    const base = `${out}-${n++}`;
    const usage = { ...process.memoryUsage(), peak };
    peak = {};
    if (process.env.HEAP_SNAPSHOT_WRITE !== 'off') writeHeapSnapshot(`${base}.heapsnapshot`);
    writeFileSync(`${base}.json`, JSON.stringify(usage));
    writeFileSync(`${base}.done`, '');
  });
}
