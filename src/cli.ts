#!/usr/bin/env node
/**
 * Command-line entry: prepares the process, then loads the commands
 * (commands/main.ts). ES modules compile their whole static import graph before
 * any of it runs, so what must come first — the heap tuning and the compile
 * cache (which only helps modules compiled after it is on) — is imported
 * here and everything else dynamically, after it.
 */
import './platform/v8-tuning.js';
import './platform/compile-cache.js';

await import('./commands/main.js');
