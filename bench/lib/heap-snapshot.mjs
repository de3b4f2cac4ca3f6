/**
 * Preloaded into a bridge child by bench/heap.ts (`node --import <this file>`): on each SIGUSR2 the process writes
 * its `process.memoryUsage()` (`<HEAP_SNAPSHOT_OUT>-<n>.json`, with the peaks of each figure and of each V8 heap
 * space's size since the previous signal, sampled every 100 ms, and the collections since, minor and major) and, unless HEAP_SNAPSHOT_WRITE=off, a heap snapshot (`<…>-<n>.heapsnapshot`, after a
 * full collection, as every snapshot does), then `<…>-<n>.done`, so the bench knows both are whole. Plain JS: the
 * bridge child runs without tsx, as users run it.
 */
import { writeFileSync } from 'node:fs';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';

const out = process.env.HEAP_SNAPSHOT_OUT;
if (out) {
  let n = 0;
  let peak = {};
  let spaces = {};
  let gc = { minor: 0, major: 0, pauseMs: 0 };
  const sample = () => {
    for (const [k, v] of Object.entries(process.memoryUsage())) peak[k] = Math.max(peak[k] ?? 0, v);
    for (const s of getHeapSpaceStatistics()) spaces[s.space_name] = Math.max(spaces[s.space_name] ?? 0, s.space_size);
  };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = e.detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) gc.major++;
      else if (kind === constants.NODE_PERFORMANCE_GC_MINOR) gc.minor++;
      gc.pauseMs += e.duration;
    }
  }).observe({ entryTypes: ['gc'] });
  setInterval(sample, 100).unref();
  process.on('SIGUSR2', () => {
    sample();
    const base = `${out}-${n++}`;
    const usage = { ...process.memoryUsage(), peak, spaces, gc };
    peak = {};
    spaces = {};
    gc = { minor: 0, major: 0, pauseMs: 0 };
    if (process.env.HEAP_SNAPSHOT_WRITE !== 'off') writeHeapSnapshot(`${base}.heapsnapshot`);
    writeFileSync(`${base}.json`, JSON.stringify(usage));
    writeFileSync(`${base}.done`, '');
  });
}
