#!/usr/bin/env node
// The tool packages the tests run, each pinned by its own lockfile (the MCP conformance CLI with the Node 22 it
// needs, the container image's Node release), installed by test/run.mjs beside the tests' start (or by running this
// file). `npm ci` re-installs ~450 MB every time, so a folder is installed only when its lockfile differs from the
// one it was installed from (a stamp with the lockfile's SHA-256 beside its node_modules).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const TOOL_FOLDERS = ['test/conformance/cli', 'test/image-node'];

/** Installs `folder` unless its stamp says it was installed from its lockfile as it is: npm's exit code and output. */
function install(folder, stdio) {
  const lock = createHash('sha256')
    .update(readFileSync(join(folder, 'package-lock.json')))
    .digest('hex');
  const stamp = join(folder, 'node_modules', '.installed-from-lock');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === lock) return Promise.resolve({ folder, code: 0, output: '' });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  return new Promise((resolve) => {
    const child = spawn(npm, ['ci', '--prefix', folder, '--no-audit', '--no-fund', '--loglevel=error'], { stdio });
    const chunks = [];
    child.stdout?.on('data', (c) => chunks.push(c));
    child.stderr?.on('data', (c) => chunks.push(c));
    child.on('error', (error) => chunks.push(Buffer.from(`${error.message}\n`)));
    child.on('close', (code) => {
      if (code === 0) writeFileSync(stamp, `${lock}\n`);
      resolve({ folder, code: code ?? 1, output: Buffer.concat(chunks).toString() });
    });
  });
}

/**
 * Both folders at once (an install is mostly unpacking and waiting on the disk: ~16 s for both in a clean clone).
 * `quiet`: npm's output kept, for a report that prints it only when an install failed.
 */
export async function installTestTools({ quiet = false } = {}) {
  const results = await Promise.all(TOOL_FOLDERS.map((folder) => install(folder, quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit')));
  const failed = results.filter((r) => r.code !== 0);
  return {
    code: failed.length ? 1 : 0,
    report: failed.map((r) => `# installing ${r.folder} failed: npm ci --prefix ${r.folder} --no-audit --no-fund\n${r.output}`).join(''),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { code } = await installTestTools();
  process.exit(code);
}
