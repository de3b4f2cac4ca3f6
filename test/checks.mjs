// `npm test`'s checks (test/run.mjs --checks): the type check, the formatting and the lint, package.json's own
// scripts run as npm runs them (`sh -c`, node_modules/.bin on the PATH), one after the other, all three whatever
// one of them finds. They run beside the tests rather than before them, at a lower CPU priority (`nice`): each is
// one busy process, so run first they left the second core idle for their ~55 s (a clean clone's figures,
// test/README.md), where beside the tests they use what the tests leave idle.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export const CHECKS = ['typecheck', 'format:check', 'lint'];

/** Runs one script; its output kept for the run's report. */
function runScript(name, script) {
  return new Promise((resolve) => {
    const env = { ...process.env, PATH: [join(process.cwd(), 'node_modules', '.bin'), process.env.PATH].join(delimiter) };
    const child = spawn('nice', ['-n', '10', 'sh', '-c', script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    child.on('error', (error) => chunks.push(Buffer.from(`${error.message}\n`)));
    child.on('close', (code, signal) => resolve({ name, code: code ?? (signal ? 1 : 0), output: Buffer.concat(chunks).toString() }));
  });
}

/** The three checks in turn; the report says each one's outcome, with its output when it failed. */
export async function runChecks() {
  const { scripts } = JSON.parse(readFileSync('package.json', 'utf8'));
  const results = [];
  for (const name of CHECKS) results.push(await runScript(name, scripts[name]));
  const report = results
    .map((r) => (r.code === 0 ? `# check ${r.name}: ok\n` : `# check ${r.name} FAILED (exit ${r.code}): npm run ${r.name}\n${r.output}`))
    .join('');
  return { code: results.some((r) => r.code !== 0) ? 1 : 0, report };
}
