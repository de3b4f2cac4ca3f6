/**
 * Every example in README.md and docs/*.md runs as written: each fenced shell
 * command and configuration is run by a scenario (test/docs/scenarios*.ts)
 * in a sandbox copy of the repository (test/docs/sandbox.ts: dist/ built,
 * the documented ports mapped to free ones), against real processes — the
 * built CLI, the OXP fixture, server-everything, curl — and asserts what the
 * text says it does. A fence that cannot run here is marked with the reason
 * (test/docs/markdown.ts) and counted: the counts below are asserted, so a
 * new example is either run or marked on purpose.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { docFiles, fencesOf, looksRunnable, type Fence } from './markdown.js';
import { cloneSandbox, makeSandbox, REPO_ROOT, type Sandbox } from './sandbox.js';
import { ExampleRun, type Scenario } from './example-run.js';
import { SCENARIO_LANES, SCENARIOS } from './scenarios.js';

/** How many fences of each kind the pages hold: change these with the pages, on purpose. */
const EXPECTED_COUNTS = { run: 32, 'not-run': 8, pending: 0, sample: 2 };

const fences: Fence[] = docFiles(REPO_ROOT).flatMap((file) => fencesOf(file, readFileSync(join(REPO_ROOT, file), 'utf8')));
const where = (f: Fence) => `${f.file}:${f.line}`;

it('every fence says what it is: a marker, unless it is `text` (or untagged and no command or configuration)', () => {
  const problems: string[] = [];
  for (const f of fences) {
    const plain = f.lang === 'text' || f.lang === '';
    if (f.lang === '' && looksRunnable(f.text)) problems.push(`${where(f)}: an untagged fence that reads like a command or configuration: tag it and mark it`);
    else if (plain && f.marker.kind !== 'none') problems.push(`${where(f)}: a \`text\` or untagged fence takes no example marker`);
    else if (!plain && f.marker.kind === 'none') problems.push(`${where(f)}: no <!-- example: … --> marker before this ${f.lang} fence`);
    if (f.marker.kind === 'bad') problems.push(`${where(f)}: unreadable marker "${f.marker.text}"`);
  }
  assert.deepEqual(problems, []);
});

it('every example id (run or pending) is one scenario step, and every step has its example', () => {
  const marked = fences.flatMap((f) => (f.marker.kind === 'run' || f.marker.kind === 'pending' ? [f.marker.id] : []));
  const duplicates = marked.filter((id, i) => marked.indexOf(id) !== i);
  assert.deepEqual(duplicates, [], 'example ids are unique across the pages');
  const steps = SCENARIOS.flatMap((s) => s.steps.map((step) => step.id));
  assert.deepEqual([...steps].sort(), [...marked].sort());
});

it('counts the examples: run, not run (with the reasons), pending, samples', (t) => {
  const counts: Record<string, number> = { run: 0, 'not-run': 0, pending: 0, sample: 0 };
  for (const f of fences) {
    if (f.marker.kind in counts) counts[f.marker.kind]!++;
    if (f.marker.kind === 'not-run' || f.marker.kind === 'pending' || f.marker.kind === 'sample')
      t.diagnostic(`${f.marker.kind} ${where(f)}: ${f.marker.reason}`);
  }
  t.diagnostic(`examples: ${counts.run} run, ${counts['not-run']} not run, ${counts.pending} pending, ${counts.sample} samples`);
  assert.deepEqual(counts, EXPECTED_COUNTS);
});

const curl = spawnSync('curl', ['--version']).status === 0;
const missing = (needs: readonly string[] = []) => needs.filter((n) => n === 'curl' && !curl);

describe('the examples run as written', { timeout: 900_000, concurrency: true }, () => {
  // One sandbox per lane: the first built (dist/ too), the others copied from it before any scenario runs (scenarios
  // write into their sandbox); the lanes run at once (scenarios.ts, SCENARIO_LANES).
  const sandboxes: Sandbox[] = [];
  const byId = new Map(fences.flatMap((f) => (f.marker.kind === 'run' ? [[f.marker.id, f] as const] : [])));
  const pending = new Map(fences.flatMap((f) => (f.marker.kind === 'pending' ? [[f.marker.id, f] as const] : [])));
  before(async () => {
    const built = await makeSandbox();
    sandboxes.push(built);
    while (sandboxes.length < SCENARIO_LANES.length) sandboxes.push(await cloneSandbox(built));
  });
  after(() => Promise.all(sandboxes.splice(0).map((sandbox) => sandbox.remove())));

  for (const [index, lane] of SCENARIO_LANES.entries())
    describe(`lane ${index + 1}, in a sandbox of its own`, { concurrency: 1 }, () => {
      // Removed when its lane is done, while the other lanes go on.
      after(() => sandboxes[index]?.remove());
      for (const scenario of lane) runScenario(scenario, () => sandboxes[index]!, byId, pending);
    });
});

/** One scenario's steps in order, in `sandbox()`; what they started is stopped at its end. */
function runScenario(scenario: Scenario, sandbox: () => Sandbox, byId: ReadonlyMap<string, Fence>, pending: ReadonlyMap<string, Fence>): void {
  const lacking = missing(scenario.needs);
  if (lacking.length && process.env.CI === 'true') {
    it(scenario.name, () => assert.fail(`${lacking.join(', ')} missing: under CI=true the examples may not be skipped (.ci/run installs it)`));
    return;
  }
  it(scenario.name, { skip: lacking.length ? `${lacking.join(', ')} not installed` : false }, async (t) => {
    const run = new ExampleRun(sandbox(), byId);
    const stop = await scenario.setup?.(run);
    try {
      for (const step of scenario.steps) {
        const waiting = pending.get(step.id);
        if (waiting) {
          t.diagnostic(`${step.id} (${where(waiting)}) not run: pending — ${waiting.marker.kind === 'pending' ? waiting.marker.reason : ''}`);
          continue;
        }
        await step.run(run).catch((error: unknown) => {
          const f = run.fence(step.id);
          throw new Error(`example ${step.id} (${where(f)}) failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
        });
      }
    } finally {
      await run.stopAll();
      await stop?.();
      for (const note of run.notes) t.diagnostic(note);
    }
  });
}
