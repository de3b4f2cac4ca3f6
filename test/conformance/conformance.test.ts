/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`,
 * pinned in conformance-cli.ts) against the bridge, in-process, serving the OXP fixture
 * tools of conformance-tools.ts over Streamable HTTP.
 *
 * - One `--suite all` run with the baseline expected-failures.yml: exits 0
 *   only if every failing scenario is listed and no listed one passes.
 * - The scenarios a tools-only bridge MUST pass, one `--scenario` run each:
 *   exit 0 and no FAILURE or WARNING check.
 *
 * How the CLI is fetched and run: conformance-cli.ts. See README.md in this folder.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { loadConfig, type LoadedConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { startBridge, type RunningBridge } from '../../src/main.js';
import { startOxpFixture, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { httpPathArgs } from '../helpers/bridge-harness.js';
import { conformanceTools } from './conformance-tools.js';
import { assertScenarioPassed, describeChecks, readChecks, report, REPO_ROOT, runConformance } from './conformance-cli.js';

const BASELINE = 'test/conformance/expected-failures.yml';

/** Scenarios the bridge must pass outright: never allowed in the baseline. */
const MUST_PASS = [
  'server-initialize',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-error',
  'json-schema-2020-12',
  'dns-rebinding-protection',
] as const;

const SUITE_TIMEOUT_MS = 5 * 60_000;
const SCENARIO_TIMEOUT_MS = 2 * 60_000;

describe('MCP conformance suite (@modelcontextprotocol/conformance)', { timeout: SUITE_TIMEOUT_MS + 6 * SCENARIO_TIMEOUT_MS }, () => {
  let fixture: OxpFixtureServer;
  let bridge: RunningBridge;
  let url: string;
  let outRoot: string;
  let failed = false;

  before(async () => {
    fixture = await startOxpFixture({ tools: conformanceTools() });
    const { config } = loadConfig([...httpPathArgs(), '--oxp-url', fixture.url, '--port', '0', '--log-level', 'silent'], {}) as LoadedConfig;
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

  it('the baseline lists no must-pass scenario, and every entry says why', () => {
    const text = readFileSync(join(REPO_ROOT, BASELINE), 'utf8');
    const parsed = parseYaml(text) as { server?: unknown };
    assert.ok(Array.isArray(parsed.server), `${BASELINE} must have a "server" list`);
    const listed = parsed.server as string[];
    for (const s of MUST_PASS) assert.ok(!listed.includes(s), `${s} must pass; it may not be baselined in ${BASELINE}`);
    assert.equal(new Set(listed).size, listed.length, `${BASELINE} lists a scenario twice`);
    const entryLines = text.split('\n').filter((l) => /^\s*-\s/.test(l));
    assert.equal(entryLines.length, listed.length);
    for (const line of entryLines) assert.match(line, /^\s*-\s+[\w-]+\s+#\s*\S/, `baseline entry without a reason comment: ${line.trim()}`);
  });

  it('--suite all matches the expected-failures baseline', { timeout: SUITE_TIMEOUT_MS }, async (t) => {
    const outDir = join(outRoot, 'suite-all');
    const run = await runConformance(['server', '--url', url, '--suite', 'all', '--expected-failures', BASELINE, '-o', outDir], SUITE_TIMEOUT_MS);
    let checks = '';
    try {
      checks = `per-scenario checks (${outDir}):\n${describeChecks(readChecks(outDir))}`;
    } catch {
      checks = `no checks.json files under ${outDir}`;
    }
    if (run.code !== 0) failed = true;
    assert.equal(run.code, 0, report(run, checks));
    assert.match(run.stdout, /Baseline check passed/, report(run, checks));
    for (const line of run.stdout.split('\n')) if (/^(Total:|Baseline check)/.test(line)) t.diagnostic(line.trim());
  });

  for (const scenario of MUST_PASS) {
    it(`${scenario} passes`, { timeout: SCENARIO_TIMEOUT_MS }, async () => {
      const outDir = join(outRoot, scenario);
      const run = await runConformance(['server', '--url', url, '--scenario', scenario, '-o', outDir], SCENARIO_TIMEOUT_MS);
      try {
        assertScenarioPassed(run, outDir, scenario);
      } catch (error) {
        failed = true;
        throw error;
      }
    });
  }
});
