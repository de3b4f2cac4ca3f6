/**
 * `node --import tsx bench/receipts/steps.ts`: a copy's own step against the library's, alone, in instructions
 * (callgrind): the bound on what the copy can save per call when the end-to-end count of bench/receipts.ts is too
 * noisy to show a small difference. Each step runs as a bridge call runs it, `STEPS_N` and 5 × `STEPS_N` times in
 * two fresh processes; the difference over 4 × `STEPS_N` iterations is the step's cost per call, start-up and JIT
 * warm-up cancelled out. In the running bridge a step costs more than alone (its garbage competes with the call's:
 * 2–3× in the ablation of 2026-11-24), so bench/README.md compares three times the difference with the call.
 *
 * Run with `<step> <variant> <iterations>` it is the measured child itself. A step whose copy was replaced leaves
 * with it (git history keeps it: the request counter's, `request-counts`, at 4675c97).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CallAbort } from '../../src/forward/client/call-abort.js';

type Step = (iterations: number) => void;

/** One POST's cancellation as client.ts and call-pool.ts use it: made, one listener added, then removed at the answer. */
function callAbort(iterations: number): void {
  let sink = 0;
  for (let i = 0; i < iterations; i++) {
    const abort = new CallAbort();
    const onAbort = () => sink++;
    abort.addEventListener('abort', onAbort);
    if (abort.aborted) sink++;
    abort.removeEventListener('abort', onAbort);
  }
  if (sink < 0) throw new Error('unreachable');
}

function abortController(iterations: number): void {
  let sink = 0;
  for (let i = 0; i < iterations; i++) {
    const controller = new AbortController();
    const signal = controller.signal;
    const onAbort = () => sink++;
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) sink++;
    signal.removeEventListener('abort', onAbort);
  }
  if (sink < 0) throw new Error('unreachable');
}

const STEPS: Record<string, { copy: Step; library: Step }> = {
  'call-abort': { copy: callAbort, library: abortController },
};

function instructions(step: string, variant: string, iterations: number): number {
  const dir = mkdtempSync(join(tmpdir(), 'steps-'));
  const file = join(dir, 'callgrind.out');
  const run = spawnSync(
    'valgrind',
    [
      '--tool=callgrind',
      `--callgrind-out-file=${file}`,
      `--log-file=${file}.log`,
      process.execPath,
      '--single-threaded',
      '--import',
      'tsx',
      fileURLToPath(import.meta.url),
      step,
      variant,
      String(iterations),
    ],
    { stdio: 'ignore' },
  );
  if (run.status !== 0) throw new Error(`${step} ${variant} failed under valgrind (${file}.log)`);
  return Number(/^summary: (\d+)/m.exec(readFileSync(file, 'utf8'))![1]);
}

const [step, variant, n] = process.argv.slice(2);
if (step && variant && n) {
  STEPS[step]![variant as 'copy' | 'library'](Number(n));
} else {
  const N = Number(process.env.STEPS_N ?? 50_000);
  const lines = ['| step | the copy, per call | the library, per call | difference |', '|---|---|---|---|'];
  for (const name of Object.keys(STEPS)) {
    const per = (v: string) => (instructions(name, v, 5 * N) - instructions(name, v, N)) / (4 * N);
    const [copy, library] = [per('copy'), per('library')];
    lines.push(`| ${name} | ${Math.round(copy)} | ${Math.round(library)} | ${Math.round(library - copy)} |`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}
