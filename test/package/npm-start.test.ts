/**
 * `npm start` as a newcomer runs it, on a copy of the repository's sources (a folder inside the repository, so
 * node_modules resolves as from a clone; package.json's own scripts): the first start bundles dist/ without
 * type-checking (that is `npm test`'s), a restart on an unchanged tree bundles nothing, and a changed source is
 * bundled again. Timings are not asserted here (figures: docs/design.md, the issue 30 note).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdtempSync, rmSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { cleanChildEnv, REPO_ROOT } from '../helpers/it-bridge.js';

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const COPIED = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts', 'src', 'assets'];

let copy: string;

before(() => {
  // `.test-js-` names what test/run.mjs, git, eslint and the architecture tests leave alone.
  copy = mkdtempSync(join(REPO_ROOT, '.test-js-start-'));
  for (const name of COPIED) cpSync(join(REPO_ROOT, name), join(copy, name), { recursive: true, filter: (src) => !src.endsWith('.test.ts') });
  // A type error esbuild does not care about: were the type check still part of `npm start`, the start would fail.
  appendFileSync(join(copy, 'src/version.ts'), "\nexport const typeCheckCanary: number = 'not a number';\n");
});

after(() => rmSync(copy, { recursive: true, force: true }));

/** `npm start -- --port 0` until the bridge logs its listening line; then stopped. Resolves with what npm printed. */
async function npmStart(): Promise<string> {
  const { NODE_TEST_CONTEXT: _ctx, ...env } = cleanChildEnv();
  // Its own process group: npm, its shell and the bridge are stopped together.
  const child = spawn(NPM, ['start', '--', '--port', '0', '--log-level', 'info'], { cwd: copy, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not listening within 120 s:\n${output}`)), 120_000);
      const poll = setInterval(() => {
        if (!/"msg":"MCP Streamable HTTP endpoint listening"/.test(output)) return;
        clearInterval(poll);
        clearTimeout(timer);
        resolve();
      }, 50);
      void exited.then(() => {
        clearInterval(poll);
        clearTimeout(timer);
        reject(new Error(`npm start exited before listening:\n${output}`));
      });
    });
  } finally {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // gone already
    }
    await exited;
  }
  return output;
}

const bundle = () => join(copy, 'dist/src/cli.js');

it('the first npm start bundles dist/ and serves, without type-checking (a type error does not stop it)', async () => {
  assert.equal(existsSync(bundle()), false);
  const output = await npmStart();
  assert.ok(existsSync(bundle()), 'dist/src/cli.js was built');
  assert.doesNotMatch(output, /tsc|error TS/, output);
});

it('a restart on an unchanged tree bundles nothing; a changed source is bundled again', async () => {
  // Back-dated, so a rebuild would be seen whatever the file system's time resolution.
  const past = new Date(Date.now() - 60_000);
  utimesSync(bundle(), past, past);
  const before = statSync(bundle()).mtimeMs;
  await npmStart();
  assert.equal(statSync(bundle()).mtimeMs, before, 'dist/src/cli.js untouched');
  appendFileSync(join(copy, 'src/version.ts'), '// changed\n');
  await npmStart();
  assert.notEqual(statSync(bundle()).mtimeMs, before, 'rebuilt after a source changed');
});
