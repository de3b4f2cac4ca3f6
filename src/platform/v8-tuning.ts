/**
 * Heap tuning, applied before anything else loads (cli.ts imports this
 * first). Under many concurrent requests, V8's default old-generation growth
 * let RSS grow to several times the live data between full collections;
 * `--heap-growing-percent=100` (the old generation at most doubles before a
 * full collection) kept RSS within the 1,000-session target at no measurable
 * CPU cost (the figures: bench/README.md#what-was-changed-and-what-it-did,
 * item 5, "Memory: heap growth"). An explicit `--heap-growing-percent` on the
 * node command line wins.
 */
import { setFlagsFromString } from 'node:v8';

if (!process.execArgv.some((arg) => arg.startsWith('--heap-growing-percent') || arg.startsWith('--heap_growing_percent'))) {
  setFlagsFromString('--heap-growing-percent=100');
}
