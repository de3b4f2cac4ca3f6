/**
 * Heap tuning, applied before anything else loads (cli.ts imports this
 * first). Under many concurrent requests, V8's default old-generation growth
 * (up to 4× the live heap between full collections) let RSS reach ~250-290 MB
 * for ~45 MB of live data; capping the growth factor at 2× kept it under
 * 200 MB at no measurable CPU cost (bench/README.md,
 * "What was changed, and what it did", item 5, "Memory: heap growth"). An explicit
 * `--heap-growing-percent` on the node command line wins.
 */
import { setFlagsFromString } from 'node:v8';

if (!process.execArgv.some((arg) => arg.startsWith('--heap-growing-percent') || arg.startsWith('--heap_growing_percent'))) {
  setFlagsFromString('--heap-growing-percent=100');
}
