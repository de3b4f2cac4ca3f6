/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`,
 * pinned in cli/package.json) against the bridge, in-process, serving the OXP
 * fixture tools of conformance-tools.ts over Streamable HTTP.
 *
 * For each spec revision (2025-11-25 on the stateful wire, 2026-07-28 on the
 * stateless wire), one `--requirements <revision>` run with that revision's
 * baseline, expected-failures-<revision>.yml:
 * - the CLI exits 0 only if every failing scored scenario (or check) is listed
 *   and no listed one passes;
 * - the scenarios the bridge MUST pass (MUST_PASS, including ones the revision
 *   runs but does not score) have checks and no FAILURE or WARNING check, and
 *   the baseline names none of them, wholesale or by check;
 * - the ten tasks-* scenarios (the 2026-07-28 tasks extension, run by the
 *   2026-07-28 set but never scored, so the CLI ignores their baseline
 *   entries): each passes, except the baseline's entries (what OXP cannot do),
 *   which must still fail, as the CLI holds a scored entry to. Until the bridge
 *   advertises the extension (the forward tasks of issue 32), that test is a
 *   todo: it runs and reports, and does not fail the suite.
 *
 * How the CLI is installed and run: conformance-cli.ts. See README.md in this folder.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { loadConfig, type LoadedConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/platform/log.js';
import { startBridge, type RunningBridge } from '../../src/commands/forward.js';
import { startOxpFixture, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { httpPathArgs } from '../helpers/bridge-harness.js';
import { conformanceTools } from './conformance-tools.js';
import { TASK_SUPPORT } from './conformance-task-tools.js';
import { type Check, describeChecks, isBad, readChecks, report, REPO_ROOT, runConformance } from './conformance-cli.js';

/** Per revision: the scenarios the bridge must pass outright (never baselined, no FAILURE or WARNING). */
const MUST_PASS = {
  '2025-11-25': [
    'server-initialize',
    'ping',
    'logging-set-level',
    'tools-list',
    'tools-call-simple-text',
    'tools-call-error',
    'tools-call-with-progress',
    'server-sse-multiple-streams',
    'dns-rebinding-protection',
    // run by the requirement set but not scored (added after release / pending):
    'server-session-lifecycle',
    'json-schema-2020-12',
  ],
  '2026-07-28': [
    'tools-list',
    'tools-call-simple-text',
    'tools-call-error',
    'tools-call-with-progress',
    'server-sse-multiple-streams',
    'dns-rebinding-protection',
    'input-required-result-unsupported-methods',
    'input-required-result-validate-input',
    // run by the requirement set but not scored (pending):
    'json-schema-2020-12',
    'http-header-validation',
  ],
} as const;
type Revision = keyof typeof MUST_PASS;

/** The tasks extension's scenarios (0.2.0-alpha.12), all run by `--requirements 2026-07-28`, none scored. */
const TASK_SCENARIOS = [
  'tasks-lifecycle',
  'tasks-capability-negotiation',
  'tasks-wire-fields',
  'tasks-request-state-removal',
  'tasks-mrtr-input',
  'tasks-request-headers',
  'tasks-dispatch-and-envelope',
  'tasks-status-notifications',
  'tasks-required-task-error',
  'tasks-mrtr-composition',
] as const;
/** The check that says the bridge advertises the extension: until it passes, the forward tasks have not landed. */
const ADVERTISED = { scenario: 'tasks-capability-negotiation', check: 'tasks-extension-advertised' };

const baselineOf = (revision: Revision): string => `test/conformance/expected-failures-${revision}.yml`;
/** Progress ticks while test_tool_with_progress works (PROGRESS_TOOL_DELAY_MS): the config minimum, so >= 3 arrive. */
const PROGRESS_INTERVAL_MS = 100;
const RUN_TIMEOUT_MS = 5 * 60_000;
/** An optional tool's call that is still running after this becomes a task (tasks-capability-negotiation: slow_compute of 1 s must). */
const OPTIONAL_TASK_AFTER_MS = 200;

describe('MCP conformance suite (@modelcontextprotocol/conformance)', { timeout: 2 * RUN_TIMEOUT_MS + 60_000 }, () => {
  let fixture: OxpFixtureServer;
  let bridge: RunningBridge;
  let url: string;
  let outRoot: string;
  let failed = false;
  const checksOf = new Map<Revision, Map<string, Check[]>>();

  before(async () => {
    fixture = await startOxpFixture({ tools: conformanceTools() });
    const { config } = loadConfig([...httpPathArgs(), '--oxp-url', fixture.url, '--port', '0', '--log-level', 'silent'], {}) as LoadedConfig;
    config.upstream.progressIntervalMs = PROGRESS_INTERVAL_MS;
    applyTaskSettings(config);
    bridge = await startBridge(config, createLogger('silent'));
    assert.ok(bridge.mcpUrl, 'the bridge did not start an HTTP endpoint');
    // dns-rebinding-protection requires a loopback URL host (127.0.0.1 / localhost / [::1]).
    url = bridge.mcpUrl;
    assert.match(url, /^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d+\/mcp$/);
    outRoot = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
  });

  after(async () => {
    await bridge?.close();
    await fixture?.close();
    // Keep the checks.json files when something failed (their path is in the failure message).
    if (outRoot && !failed) rmSync(outRoot, { recursive: true, force: true });
  });

  for (const revision of Object.keys(MUST_PASS) as Revision[]) {
    it(`the ${revision} baseline lists no must-pass scenario, and every entry says why`, () => {
      const text = readFileSync(join(REPO_ROOT, baselineOf(revision)), 'utf8');
      const parsed = parseYaml(text) as { server?: unknown };
      assert.ok(Array.isArray(parsed.server), `${baselineOf(revision)} must have a "server" list`);
      const listed = parsed.server as string[];
      const scenarios = listed.map((entry) => entry.split(':')[0]);
      for (const s of MUST_PASS[revision]) assert.ok(!scenarios.includes(s), `${s} must pass; it may not be baselined in ${baselineOf(revision)}`);
      assert.equal(new Set(listed).size, listed.length, `${baselineOf(revision)} lists an entry twice`);
      const entryLines = text.split('\n').filter((l) => /^\s*-\s/.test(l));
      assert.equal(entryLines.length, listed.length);
      for (const line of entryLines) assert.match(line, /^\s*-\s+[\w:-]+\s+#\s*\S/, `baseline entry without a reason comment: ${line.trim()}`);
    });

    it(`--requirements ${revision} matches its baseline, and every must-pass scenario passes`, { timeout: RUN_TIMEOUT_MS }, async (t) => {
      const outDir = join(outRoot, revision);
      const run = await runConformance(
        ['server', '--url', url, '--requirements', revision, '--expected-failures', baselineOf(revision), '-o', outDir],
        RUN_TIMEOUT_MS,
      );
      let byScenario = new Map<string, Check[]>();
      let checks: string;
      try {
        byScenario = readChecks(outDir);
        checksOf.set(revision, byScenario);
        checks = `per-scenario checks (${outDir}):\n${describeChecks(byScenario)}`;
      } catch {
        checks = `no checks.json files under ${outDir}`;
      }
      try {
        assert.equal(run.code, 0, report(run, checks));
        assert.match(run.stdout, /Baseline check passed/, report(run, checks));
        for (const scenario of MUST_PASS[revision]) {
          const got = byScenario.get(scenario) ?? [];
          assert.ok(got.length > 0, report(run, `no checks recorded for must-pass scenario ${scenario}\n${checks}`));
          assert.deepEqual(
            got.filter(isBad).map((c) => `${scenario}: ${c.status} [${c.id}] ${c.errorMessage ?? c.description ?? ''}`),
            [],
            report(run, checks),
          );
        }
      } catch (error) {
        failed = true;
        throw error;
      }
      for (const line of run.stdout.split('\n')) if (/^(Total:|Baseline check|Not scored)/.test(line.trim())) t.diagnostic(line.trim());
    });
  }

  it('the ten tasks-* scenarios pass, but for the baselined ones (what OXP cannot do), which still fail', (t) => {
    const byScenario = checksOf.get('2026-07-28');
    assert.ok(byScenario, 'the 2026-07-28 run recorded no checks');
    const advertised = byScenario.get(ADVERTISED.scenario)?.find((c) => c.id === ADVERTISED.check)?.status === 'SUCCESS';
    if (!advertised) t.todo('the bridge does not advertise io.modelcontextprotocol/tasks yet: the forward tasks (issue 32) have not landed');
    const baselined = taskBaseline();
    const problems: string[] = [];
    for (const scenario of TASK_SCENARIOS) {
      const got = byScenario.get(scenario) ?? [];
      const expected = baselined.filter((e) => e.scenario === scenario);
      const wholesale = expected.some((e) => e.check === undefined);
      if (got.length === 0) problems.push(`${scenario}: no checks recorded`);
      for (const c of got.filter(isBad)) {
        if (!wholesale && !expected.some((e) => e.check === c.id)) problems.push(`${scenario}: ${c.status} [${c.id}] ${c.errorMessage ?? c.description ?? ''}`);
      }
      // A baselined entry that passes is stale, as the CLI says of a scored one.
      for (const e of expected) {
        const failing = e.check === undefined ? got.some(isBad) : got.some((c) => c.id === e.check && isBad(c));
        if (!failing)
          problems.push(`${e.check ? `${scenario}:${e.check}` : scenario}: baselined, but it passes now: remove it from ${baselineOf('2026-07-28')}`);
      }
      t.diagnostic(`${got.some(isBad) ? (wholesale ? '~' : '✗') : '✓'} ${scenario}`);
    }
    assert.deepEqual(problems, [], `per-scenario checks:\n${describeChecks(new Map(TASK_SCENARIOS.map((s) => [s, byScenario.get(s) ?? []])))}`);
  });
});

/** The 2026-07-28 baseline's entries for tasks-* scenarios (`scenario` or `scenario:check`). */
function taskBaseline(): { scenario: string; check?: string }[] {
  const parsed = parseYaml(readFileSync(join(REPO_ROOT, baselineOf('2026-07-28')), 'utf8')) as { server: string[] };
  return parsed.server
    .filter((entry) => entry.startsWith('tasks-'))
    .map((entry) => {
      const [scenario, check] = entry.split(':') as [string, string | undefined];
      return check === undefined ? { scenario } : { scenario, check };
    });
}

/**
 * The forward task settings the tasks-* scenarios need (conformance-task-tools.ts), on the loaded configuration as
 * progressIntervalMs is: per tool its `execution.taskSupport` (TASK_SUPPORT, as `upstream.toolSettings`), and
 * `tasks.taskAfterMs` well under the scenarios' shortest task (slow_compute of 1 s must become one; the default,
 * 1 s, would race it). The keys are the forward tasks' (wip/tasks, issue 32); until they are merged, nothing reads them.
 */
function applyTaskSettings(config: LoadedConfig['config']): void {
  const toolSettings = Object.entries(TASK_SUPPORT).map(([name, taskSupport]) => ({ tools: [name], taskSupport }));
  Object.assign(config.upstream, { taskSupport: 'optional', toolSettings });
  const withTasks = config as { tasks?: Record<string, unknown> };
  withTasks.tasks = { ...withTasks.tasks, taskAfterMs: OPTIONAL_TASK_AFTER_MS };
}
