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
 *   the baseline names none of them, wholesale or by check.
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

const baselineOf = (revision: Revision): string => `test/conformance/expected-failures-${revision}.yml`;
/** Progress ticks while test_tool_with_progress works (PROGRESS_TOOL_DELAY_MS): the config minimum, so >= 3 arrive. */
const PROGRESS_INTERVAL_MS = 100;
const RUN_TIMEOUT_MS = 5 * 60_000;

describe('MCP conformance suite (@modelcontextprotocol/conformance)', { timeout: 2 * RUN_TIMEOUT_MS + 60_000 }, () => {
  let fixture: OxpFixtureServer;
  let bridge: RunningBridge;
  let url: string;
  let outRoot: string;
  let failed = false;

  before(async () => {
    fixture = await startOxpFixture({ tools: conformanceTools() });
    const { config } = loadConfig([...httpPathArgs(), '--oxp-url', fixture.url, '--port', '0', '--log-level', 'silent'], {}) as LoadedConfig;
    config.upstream.progressIntervalMs = PROGRESS_INTERVAL_MS;
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
});
