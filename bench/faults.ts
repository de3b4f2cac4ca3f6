/**
 * `npm run bench:faults`: issue 37's fault scenario (test/helpers/fault-scenario.ts, the round
 * test/integration/faults.test.ts runs once) in rounds for `FAULTS_MINUTES` (default 5) on one deployment: three
 * replicas of the CLI behind nginx on one Redis, the load running in every round while Redis is frozen, killed and
 * restarted and two replicas (another pair each round) are SIGKILLed and SIGTERMed and started again. Prints each
 * round's summary as it ends, then each replica's RSS over time (/proc/PID/status VmRSS every
 * `FAULTS_SAMPLE_SECONDS`, default 10; `*` marks a replica started again since the sample before) and the invariants
 * over all rounds; writes bench/results/faults-latest.json. Exits 1 when an invariant was broken. `FAULTS_SEED`
 * repeats a run's random choices. Not part of `npm test` or CI; needs nginx and redis-server (Debian's packages).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { startDeployment } from '../test/helpers/fault-deployment.js';
import type { Verdict } from '../test/helpers/fault-invariants.js';
import { emptyTally, formatReport, merge } from '../test/helpers/fault-report.js';
import { faultRound } from '../test/helpers/fault-scenario.js';
import { requireNginx } from '../test/helpers/nginx.js';
import { requireRedisServer } from '../test/helpers/redis-server.js';

const MINUTES = Number(process.env.FAULTS_MINUTES ?? 5);
const SAMPLE_SECONDS = Number(process.env.FAULTS_SAMPLE_SECONDS ?? 10);
const SEED = Number(process.env.FAULTS_SEED ?? Date.now() % 1_000_000);

interface Sample {
  /** Seconds since the deployment was up. */
  t: number;
  /** Each replica's VmRSS in KiB (null: not running at that moment). */
  kib: (number | null)[];
  pids: (number | null)[];
}

async function main(): Promise<void> {
  const nginx = requireNginx();
  const redisMissing = requireRedisServer().why;
  if (!nginx.path || redisMissing) throw new Error(nginx.why ?? redisMissing);
  const deployment = await startDeployment(nginx.path);
  const started = Date.now();
  const samples: Sample[] = [];
  const sample = () =>
    samples.push({
      t: Math.round((Date.now() - started) / 1000),
      kib: deployment.rss().map((r) => r.kib ?? null),
      pids: deployment.replicas.map((r) => r.cli?.child.pid ?? null),
    });
  sample();
  const timer = setInterval(sample, SAMPLE_SECONDS * 1000);
  const total = emptyTally();
  const verdicts = new Map<string, Verdict>();
  process.stdout.write(`bench:faults: ${MINUTES} min of fault rounds, seed ${SEED}, RSS every ${SAMPLE_SECONDS} s\n`);
  try {
    for (let round = 0; Date.now() - started < MINUTES * 60_000; round++) {
      const result = await faultRound(deployment, round, { seed: SEED });
      process.stdout.write(`${result.report}\n`);
      merge(total, result.tally);
      for (const v of result.verdicts) {
        const sum = verdicts.get(v.name) ?? { name: v.name, checked: 0, violations: [] };
        const named = v.violations.map((line) => `round ${round}: ${line}`);
        verdicts.set(v.name, { name: v.name, checked: sum.checked + v.checked, violations: [...sum.violations, ...named] });
      }
    }
  } finally {
    clearInterval(timer);
    sample();
    await deployment.close();
  }
  process.stdout.write(`\n${rssTable(samples)}\n\n${formatReport(`all rounds (${MINUTES} min, seed ${SEED}):`, total, [...verdicts.values()])}\n`);
  mkdirSync('bench/results', { recursive: true });
  const summary = [...verdicts.values()].map((v) => ({ name: v.name, checked: v.checked, violations: v.violations.length, first: v.violations.slice(0, 5) }));
  writeFileSync(
    'bench/results/faults-latest.json',
    `${JSON.stringify({ minutes: MINUTES, seed: SEED, tally: total, invariants: summary, rss: samples }, null, 2)}\n`,
  );
  process.exitCode = summary.some((v) => v.violations > 0) ? 1 : 0;
}

/** Seconds, then each replica's RSS in MB; `*` when its process is new since the sample before, `-` when down. */
function rssTable(samples: readonly Sample[]): string {
  const lines = ['RSS (MB) over time', `${'t (s)'.padStart(6)}  ${[0, 1, 2].map((i) => `replica ${i}`.padStart(11)).join('')}`];
  samples.forEach((s, i) => {
    const cells = s.kib.map((kib, r) => {
      const restarted = i > 0 && s.pids[r] !== samples[i - 1]!.pids[r] ? '*' : ' ';
      return `${kib === null ? '-' : (kib / 1024).toFixed(1)}${restarted}`.padStart(11);
    });
    lines.push(`${String(s.t).padStart(6)}  ${cells.join('')}`);
  });
  return lines.join('\n');
}

await main();
