/**
 * `node --import tsx bench/import-cost.ts [module…]`: what loading a module graph costs, in instructions (valgrind's
 * callgrind, the whole process), which a loaded machine does not change: `node --input-type=module -e "await
 * import('<module>')"` less an empty `node -e 0`, `IMPORT_RUNS` runs each (default 2). The modules default to the ones
 * the code's comments say it keeps off the start-up path (bench/README.md, "Figures behind comments in the code").
 * Needs valgrind.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './lib/procs.js';
import { median } from './lib/stats.js';

const MODULES = ['@modelcontextprotocol/server', 'express', 'ioredis', '@opentelemetry/semantic-conventions', 'prom-client', 'ajv'];
const RUNS = Number(process.env.IMPORT_RUNS ?? 2);
const out = mkdtempSync(join(tmpdir(), 'import-cost-'));

/** Instructions of `node <args>` under callgrind. */
function instructions(args: string[], tag: string): number {
  const file = join(out, `${tag}.out`);
  const run = spawnSync('valgrind', ['--tool=callgrind', `--callgrind-out-file=${file}`, `--log-file=${file}.log`, process.execPath, ...args], {
    cwd: REPO_ROOT,
    stdio: 'ignore',
  });
  if (run.status !== 0) throw new Error(`node ${args.join(' ')} failed under valgrind (see ${file}.log)`);
  return Number(/^summary: (\d+)/m.exec(readFileSync(file, 'utf8'))![1]);
}

const modules = process.argv.slice(2).length ? process.argv.slice(2) : MODULES;
const counts = (args: string[], tag: string) => Array.from({ length: RUNS }, (_, i) => instructions(args, `${tag}-${i}`));
const empty = median(counts(['-e', '0'], 'empty'));
const fmt = (n: number) => `${(n / 1e6).toFixed(0)} M`;
const lines = [`| module | instructions to import (less an empty node's ${fmt(empty)}) |`, '|---|---|'];
for (const [i, module] of modules.entries()) {
  const each = counts(['--input-type=module', '-e', `await import(${JSON.stringify(module)})`], `m${i}`);
  lines.push(`| \`${module}\` | ${fmt(median(each) - empty)} (runs: ${each.map((n) => fmt(n - empty)).join(' / ')}) |`);
}
process.stdout.write(`${lines.join('\n')}\n`);
