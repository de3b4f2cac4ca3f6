// `npm test`'s checks (test/run.mjs --checks): the type check, the formatting and the lint, package.json's own
// scripts run as npm runs them (`sh -c`, node_modules/.bin on the PATH), one after the other, all three whatever
// one of them finds. They run beside the tests rather than before them, at a lower CPU priority (`nice`): each is
// one busy process, so run first they left the second core idle for their ~55 s (a clean clone's figures,
// test/README.md), where beside the tests they use what the tests leave idle. Once the tests have ended
// (`hurry`), what is left of them runs at the normal priority where the user may raise it (root, CI): on a machine
// busy with other work, a check at nice 10 got a sixth of a core and the run waited minutes for it.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export const CHECKS = ['typecheck', 'format:check', 'lint'];

/** The running check's process group (its `sh` leads one of its own), and whether the tests have ended. */
let group;
let hurried = false;

/** The tests have ended: the checks left run at nice 0 (`renice` of their group; a user who may not raise a priority keeps nice 10). */
export function hurry() {
  hurried = true;
  if (group !== undefined) spawnSync('renice', ['-n', '0', '-g', String(group)], { stdio: 'ignore' });
}

/** Runs one script; its output kept for the run's report. */
function runScript(name, script) {
  return new Promise((resolve) => {
    const env = { ...process.env, PATH: [join(process.cwd(), 'node_modules', '.bin'), process.env.PATH].join(delimiter) };
    const child = spawn('nice', ['-n', hurried ? '0' : '10', 'sh', '-c', script], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const pid = child.pid;
    group = pid;
    // Its own process group (for `hurry`) is out of the terminal's: an interrupted run ends it.
    const end = () => {
      try {
        if (pid !== undefined) process.kill(-pid, 'SIGTERM');
      } catch {
        // ended already
      }
    };
    process.on('exit', end);
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    child.on('error', (error) => chunks.push(Buffer.from(`${error.message}\n`)));
    child.on('close', (code, signal) => {
      process.off('exit', end);
      group = undefined;
      resolve({ name, code: code ?? (signal ? 1 : 0), output: Buffer.concat(chunks).toString() });
    });
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
