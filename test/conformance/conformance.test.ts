/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`,
 * pinned below) against the bridge, in-process, serving the OXP fixture
 * tools of conformance-tools.ts over Streamable HTTP.
 *
 * - One `--suite all` run with the baseline expected-failures.yml: exits 0
 *   only if every failing scenario is listed and no listed one passes.
 * - The scenarios a tools-only bridge MUST pass, one `--scenario` run each:
 *   exit 0 and no FAILURE or WARNING check.
 *
 * The CLI needs Node >= 22 (it imports `globSync` from node:fs), so npx also
 * installs the platform Node package and puts it first on PATH for the CLI's
 * `#!/usr/bin/env node`. Needs network access on a cold npm cache (~10 s);
 * warm runs reuse ~/.npm/_npx. See README.md in this folder.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { loadConfig, type LoadedConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { startBridge, type RunningBridge } from '../../src/main.js';
import { startOxpFixture, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { httpPathArgs } from '../helpers/bridge-harness.js';
import { conformanceTools } from './conformance-tools.js';

const CONFORMANCE_PACKAGE = '@modelcontextprotocol/conformance@0.1.16';
/** Platform Node package without install scripts; `node@22` (which has one) elsewhere. */
const NODE_PACKAGE =
  process.platform === 'linux' && (process.arch === 'x64' || process.arch === 'arm64') ? `node-linux-${process.arch}@22` : 'node@22';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
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

interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  command: string;
}

interface Check {
  id: string;
  name?: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | string;
  description?: string;
  errorMessage?: string;
}

const stripAnsi = (s: string): string => s.replace(/\x1b\[[0-9;]*m/g, '');

/** Runs `conformance server --url URL ...args` through npx; never rejects. */
function runConformance(url: string, args: string[], timeoutMs: number): Promise<CliRun> {
  const argv = ['-y', '-p', NODE_PACKAGE, '-p', CONFORMANCE_PACKAGE, '--', 'conformance', 'server', '--url', url, ...args];
  const command = `npx ${argv.join(' ')}`;
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    // Own process group, so a timeout also ends npx's children (the CLI itself).
    // The CLI is not a node:test child: do not hand it the runner's context.
    const { NODE_TEST_CONTEXT: _runner, ...env } = process.env;
    const child = spawn('npx', argv, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, timedOut, stdout, stderr: `${stderr}\nspawn failed: ${error.message}`, command });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, timedOut, stdout: stripAnsi(stdout), stderr: stripAnsi(stderr), command });
    });
  });
}

/** `-o DIR` holds `server-<scenario>-<timestamp>/checks.json` per scenario. */
function readChecks(outDir: string): Map<string, Check[]> {
  const byScenario = new Map<string, Check[]>();
  for (const entry of readdirSync(outDir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const m = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry.name);
    if (!m) continue;
    const checks = JSON.parse(readFileSync(join(outDir, entry.name, 'checks.json'), 'utf8')) as Check[];
    byScenario.set(m[1]!, [...(byScenario.get(m[1]!) ?? []), ...checks]);
  }
  return byScenario;
}

const isBad = (c: Check): boolean => c.status === 'FAILURE' || c.status === 'WARNING';

function describeChecks(byScenario: Map<string, Check[]>): string {
  const lines: string[] = [];
  for (const [scenario, checks] of [...byScenario].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const bad = checks.filter(isBad);
    lines.push(`${bad.length ? '✗' : '✓'} ${scenario}`);
    for (const c of bad) lines.push(`    ${c.status} [${c.id}] ${c.errorMessage ?? c.description ?? ''}`);
  }
  return lines.join('\n');
}

function report(run: CliRun, extra = ''): string {
  const how = run.timedOut ? 'timed out and was killed' : `exited with code ${run.code}${run.signal ? ` (signal ${run.signal})` : ''}`;
  return [`conformance CLI ${how}`, `command: ${run.command}`, extra, '--- stdout ---', run.stdout.trim(), '--- stderr ---', run.stderr.trim()]
    .filter((s) => s !== '')
    .join('\n');
}

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
    const run = await runConformance(url, ['--suite', 'all', '--expected-failures', BASELINE, '-o', outDir], SUITE_TIMEOUT_MS);
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
      const run = await runConformance(url, ['--scenario', scenario, '-o', outDir], SCENARIO_TIMEOUT_MS);
      if (run.code !== 0) failed = true;
      assert.equal(run.code, 0, report(run));
      // A single-scenario run exits 0 on WARNING; a must-pass scenario may not warn either.
      const checks = readChecks(outDir).get(scenario) ?? [];
      assert.ok(checks.length > 0, report(run, `no checks recorded for ${scenario} under ${outDir}`));
      const bad = checks.filter(isBad);
      if (bad.length) failed = true;
      assert.deepEqual(
        bad.map((c) => `${c.status} [${c.id}] ${c.errorMessage ?? c.description ?? ''}`),
        [],
        report(run, `${scenario} has FAILURE/WARNING checks`),
      );
    });
  }
});
