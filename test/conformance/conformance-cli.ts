/**
 * Running the official MCP conformance CLI (`@modelcontextprotocol/conformance`)
 * from node:test, for the server suite (conformance.test.ts) and the client
 * scenarios (client-conformance.test.ts).
 *
 * The CLI and the Node >= 22 it needs (it imports `globSync` from node:fs) are
 * pinned, with a lockfile, in the nested tool package cli/ and installed by the
 * test run (test/run.mjs: `npm ci --prefix test/conformance/cli`): nothing is
 * fetched at run time. That Node goes first on PATH for the CLI only, so the
 * CLI's `#!/usr/bin/env node` runs on it while the project stays on Node 20.
 * See README.md in this folder.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI_DIR = fileURLToPath(new URL('./cli/', import.meta.url));
const CLI_BIN = join(CLI_DIR, 'node_modules', '.bin');

/** The pinned CLI version, from the tool package's manifest (for messages and docs). */
export const CONFORMANCE_VERSION = (JSON.parse(readFileSync(join(CLI_DIR, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies[
  '@modelcontextprotocol/conformance'
];

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  command: string;
}

export interface Check {
  id: string;
  name?: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | string;
  description?: string;
  errorMessage?: string;
}

const NOT_INSTALLED = `the conformance CLI is not installed: run \`npm ci --prefix test/conformance/cli --no-audit --no-fund\` (test/run.mjs does, as does \`node scripts/install-test-tools.mjs\`)`;

/** Runs `conformance ...args` (e.g. `server --url URL ...`, `client --command CMD ...`) with the pinned CLI; never rejects. */
export function runConformance(args: string[], timeoutMs: number): Promise<CliRun> {
  const command = `conformance ${args.join(' ')}`;
  if (!existsSync(join(CLI_BIN, 'conformance')) || !existsSync(join(CLI_BIN, 'node'))) {
    return Promise.resolve({ code: null, signal: null, timedOut: false, stdout: '', stderr: NOT_INSTALLED, command });
  }
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    // Own process group, so a timeout also ends the CLI's children (client scenarios spawn a client).
    // The CLI is not a node:test child: do not hand it the runner's context.
    // cli/node_modules/.bin first on PATH: its `node` is the pinned Node 22 the CLI's shebang finds.
    // A client command's own `node` (client-conformance.test.ts) names process.execPath instead.
    const { NODE_TEST_CONTEXT: _runner, ...env } = process.env;
    env.PATH = `${CLI_BIN}${delimiter}${env.PATH ?? ''}`;
    const child = spawn(join(CLI_BIN, 'conformance'), args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
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
      resolve({ code, signal, timedOut, stdout: stripVTControlCharacters(stdout), stderr: stripVTControlCharacters(stderr), command });
    });
  });
}

/** `-o DIR` holds `<prefix><scenario>-<timestamp>/checks.json` per scenario (prefix `server-` for server runs, none for client runs). */
export function readChecks(outDir: string, prefix = 'server-'): Map<string, Check[]> {
  const byScenario = new Map<string, Check[]>();
  for (const entry of readdirSync(outDir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const m = new RegExp(`^${prefix}(.+)-\\d{4}-\\d{2}-\\d{2}T[\\d-]+Z$`).exec(entry.name);
    if (!m) continue;
    const checks = JSON.parse(readFileSync(join(outDir, entry.name, 'checks.json'), 'utf8')) as Check[];
    byScenario.set(m[1]!, [...(byScenario.get(m[1]!) ?? []), ...checks]);
  }
  return byScenario;
}

export const isBad = (c: Check): boolean => c.status === 'FAILURE' || c.status === 'WARNING';

export function describeChecks(byScenario: Map<string, Check[]>): string {
  const lines: string[] = [];
  for (const [scenario, checks] of [...byScenario].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const bad = checks.filter(isBad);
    lines.push(`${bad.length ? '✗' : '✓'} ${scenario}`);
    for (const c of bad) lines.push(`    ${c.status} [${c.id}] ${c.errorMessage ?? c.description ?? ''}`);
  }
  return lines.join('\n');
}

export function report(run: CliRun, extra = ''): string {
  const how = run.timedOut ? 'timed out and was killed' : `exited with code ${run.code}${run.signal ? ` (signal ${run.signal})` : ''}`;
  return [`conformance CLI ${how}`, `command: ${run.command}`, extra, '--- stdout ---', run.stdout.trim(), '--- stderr ---', run.stderr.trim()]
    .filter((s) => s !== '')
    .join('\n');
}

/**
 * One `--scenario` run passed: exit 0, checks recorded, and none FAILURE or
 * WARNING (a single-scenario run exits 0 on WARNING; a must-pass scenario
 * may not warn either). Throws an assertion error that carries the CLI output.
 */
export function assertScenarioPassed(run: CliRun, outDir: string, scenario: string, prefix = 'server-'): void {
  assert.equal(run.code, 0, report(run));
  const checks = readChecks(outDir, prefix).get(scenario) ?? [];
  assert.ok(checks.length > 0, report(run, `no checks recorded for ${scenario} under ${outDir}`));
  assert.deepEqual(
    checks.filter(isBad).map((c) => `${c.status} [${c.id}] ${c.errorMessage ?? c.description ?? ''}`),
    [],
    report(run, `${scenario} has FAILURE/WARNING checks`),
  );
}
