/**
 * `npm run bench:features`: what each per-call feature costs — the bridge with one feature off (or, for the audit
 * trail, off by default, on), against the same build with everything on, in CPU µs per `tools/call`.
 *
 * Switched off at run time where a setting does it (the log line: `--log-level warn`; the console: `--console false`;
 * the audit trail: `--audit-file`), else by a bench-only build of the same sources with the feature's call sites edited
 * out (bench/variants.ts: metrics, access and limits, input validation, the trace call sites with tracing off, the hot
 * classification). Every bridge runs at once on the measured core (lib/machine.ts), each driven in turn: `FEATURES_ROUNDS`
 * rounds (default 5) × `FEATURES_SECONDS` (4) per bridge at `FEATURES_CONNECTIONS` (8) connections, the order rotated
 * each round, in `FEATURES_PASSES` passes (2) that start the bridges in opposite orders. A feature's cost is the median
 * over all rounds of the paired difference with the all-on bridge of the same round (a drift hits both). CPU is the
 * whole process's (/proc/<pid>/stat, every thread), the main thread's in brackets.
 *
 * `FEATURES_PROTOCOL=modern|legacy` (default modern: 2026-07-28), `FEATURES_ONLY=<row>,…` (e.g. `log,metrics`),
 * `FEATURES_ARGS` (flags for every bridge, e.g. `--config bench/policy-50.yaml` for access with a policy).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from './lib/load.js';
import { loadLine, machineHeader, pinSelf } from './lib/machine.js';
import { startBenchServer, startBridge, threadCpu, threadCpuPerCall, type Child } from './lib/procs.js';
import { median } from './lib/stats.js';
import { checkAnswer, toolsCallRequest, type Protocol } from './lib/workload.js';
import { buildVariant, variantNamed } from './variants.js';

const ROUNDS = Number(process.env.FEATURES_ROUNDS ?? 5);
const SECONDS = Number(process.env.FEATURES_SECONDS ?? 4);
const PASSES = Number(process.env.FEATURES_PASSES ?? 2);
const CONNECTIONS = Number(process.env.FEATURES_CONNECTIONS ?? 8);
const PROTOCOL = (process.env.FEATURES_PROTOCOL ?? 'modern') as Protocol;
const EXTRA_ARGS = (process.env.FEATURES_ARGS ?? '').split(' ').filter(Boolean);

interface Row {
  key: string;
  feature: string;
  how: string;
  /** The bench-only build (bench/variants.ts) it runs. */
  variant: string;
  args: string[];
  level: string;
  /** +1: the row switches the feature off (cost = all-on − row); −1: it switches it on (cost = row − all-on). */
  sign: 1 | -1;
}

function rows(auditFile: string): Row[] {
  const row = (key: string, feature: string, how: string, variant = 'all-on', args: string[] = [], level = 'info', sign: 1 | -1 = 1): Row => ({
    key,
    feature,
    how,
    variant,
    args,
    level,
    sign,
  });
  return [
    row('all-on', 'nothing (default settings: info, console and metrics on, no policy, audit off)', 'the baseline'),
    row('log', 'the per-call log line', '--log-level warn', 'all-on', [], 'warn'),
    row('metrics', 'metrics (request counter, upstream latency histogram)', 'build no-metrics', 'no-metrics'),
    row('console', "the console's record", '--console false', 'all-on', ['--console', 'false']),
    row('access', 'access and limits (policy decision, admission)', 'build no-access', 'no-access'),
    row('validation', "input validation (the request's official schema, the tool's input schema)", 'build no-validation', 'no-validation'),
    row('trace', 'the trace call sites, tracing off (span start/end)', 'build no-trace-sites', 'no-trace-sites'),
    row('classify', 'the hot classification (a literal outcome instead)', 'build no-hot-classify', 'no-hot-classify'),
    row(
      'audit',
      'the audit trail, to a file (off by default: this row turns it on)',
      `--audit-file ${auditFile}`,
      'all-on',
      ['--audit-file', auditFile],
      'info',
      -1,
    ),
  ];
}

interface Samples {
  cpu: number[];
  main: number[];
  rps: number[];
  /** Per round: this row's CPU per call minus the all-on bridge's in the same round. */
  diff: number[];
}

async function pass(oxp: Child, table: Row[], clis: Map<string, string>, reversed: boolean, samples: Map<string, Samples>): Promise<void> {
  const spec = toolsCallRequest(PROTOCOL);
  const running: { row: Row; child: Child }[] = [];
  try {
    for (const row of reversed ? [...table].reverse() : table)
      running.push({
        row,
        child: await startBridge({ oxpUrl: oxp.url, cli: clis.get(row.variant)!, args: [...EXTRA_ARGS, ...row.args], logLevel: row.level }),
      });
    for (const { row, child } of running) {
      await checkAnswer(row.key, child.url, spec);
      await load(child.url, spec, CONNECTIONS, 2); // warm-up
    }
    for (let round = 0; round < ROUNDS; round++) {
      const cpu = new Map<string, number>();
      // Rotated each round: no bridge is always measured first or last.
      const order = running.map((_, i) => running[(i + round) % running.length]!);
      for (const { row, child } of order) {
        const before = threadCpu(child.pid)!;
        const r = await load(child.url, spec, CONNECTIONS, SECONDS);
        if (r.errors || r.non2xx) process.stderr.write(`${row.key}: ${r.errors} errors, ${r.non2xx} non-2xx\n`);
        const per = threadCpuPerCall(before, threadCpu(child.pid)!, r.requests);
        const s = samples.get(row.key) ?? { cpu: [], main: [], rps: [], diff: [] };
        s.cpu.push(per.total);
        s.main.push(per.main);
        s.rps.push(r.rps);
        samples.set(row.key, s);
        cpu.set(row.key, per.total);
      }
      for (const row of table) samples.get(row.key)!.diff.push(cpu.get(row.key)! - cpu.get('all-on')!);
    }
  } finally {
    for (const { child } of running) await child.stop();
  }
}

function render(table: Row[], samples: Map<string, Samples>): string {
  const base = samples.get('all-on')!;
  const baseCpu = median(base.cpu);
  const lines = [
    `| feature | switched by | CPU µs/call (main thread) | req/s | cost µs/call (paired median; min … max) | cost % of all-on |`,
    '|---|---|---|---|---|---|',
  ];
  for (const row of table) {
    const s = samples.get(row.key)!;
    const cpu = `${median(s.cpu).toFixed(0)} (${median(s.main).toFixed(0)})`;
    if (row.key === 'all-on') {
      lines.push(`| ${row.feature} | ${row.how} | ${cpu} | ${Math.round(median(s.rps))} | | |`);
      continue;
    }
    // Off: the feature costs what the all-on bridge spends more; on (audit): what this one spends more.
    const costs = s.diff.map((d) => -row.sign * d);
    const cost = median(costs);
    lines.push(
      `| ${row.feature} | ${row.how} | ${cpu} | ${Math.round(median(s.rps))} | ${cost.toFixed(1)} (${Math.min(...costs).toFixed(0)} … ${Math.max(...costs).toFixed(0)}) | ${((100 * cost) / baseCpu).toFixed(1)} % |`,
    );
  }
  lines.push(
    '',
    `${PROTOCOL === 'modern' ? '2026-07-28' : '2025-11-25'} tools/call at ${CONNECTIONS} connections, ${PASSES} passes × ${ROUNDS} rounds × ${SECONDS} s per bridge; CPU: the whole process (/proc/<pid>/stat), main thread in brackets; cost > 0: the feature costs that much per call.${EXTRA_ARGS.length ? ` Every bridge: ${EXTRA_ARGS.join(' ')}.` : ''}`,
    `${loadLine()} at the end.`,
  );
  return lines.join('\n');
}

async function main(): Promise<void> {
  pinSelf();
  process.stderr.write(`${machineHeader('bench:features')}\n`);
  const dir = mkdtempSync(join(tmpdir(), 'bench-features-'));
  const only = process.env.FEATURES_ONLY?.split(',').map((x) => x.trim());
  const table = rows(join(dir, 'audit.jsonl')).filter((r) => r.key === 'all-on' || !only || only.includes(r.key));
  const clis = new Map<string, string>();
  for (const name of new Set(table.map((r) => r.variant))) clis.set(name, await buildVariant(variantNamed(name)));
  const samples = new Map<string, Samples>();
  const oxp = await startBenchServer('oxp', 'oxp');
  try {
    for (let p = 0; p < PASSES; p++) await pass(oxp, table, clis, p % 2 === 1, samples);
  } finally {
    await oxp.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(`${render(table, samples)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:features failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
