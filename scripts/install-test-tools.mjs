#!/usr/bin/env node
// `pretest`: the tool packages the tests run, each pinned by its own lockfile
// (the MCP conformance CLI with the Node 22 it needs, the container image's
// Node release). `npm ci` re-installs ~450 MB every time, so a folder is
// installed only when its lockfile differs from the one it was installed from
// (a stamp with the lockfile's SHA-256 beside its node_modules).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const FOLDERS = ['test/conformance/cli', 'test/image-node'];

/** Installs `folder` unless its stamp says it was installed from its lockfile as it is; resolves to npm's exit code. */
function install(folder) {
  const lock = createHash('sha256')
    .update(readFileSync(join(folder, 'package-lock.json')))
    .digest('hex');
  const stamp = join(folder, 'node_modules', '.installed-from-lock');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === lock) return Promise.resolve(0);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  return new Promise((resolve) => {
    const child = spawn(npm, ['ci', '--prefix', folder, '--no-audit', '--no-fund', '--loglevel=error'], { stdio: 'inherit' });
    child.on('error', () => resolve(1));
    child.on('close', (code) => {
      if (code === 0) writeFileSync(stamp, `${lock}\n`);
      resolve(code ?? 1);
    });
  });
}

// Both at once: an install is mostly waiting on the disk and unpacking (~24 s for both, one after the other, in a
// clean clone).
const codes = await Promise.all(FOLDERS.map(install));
const failed = codes.find((code) => code !== 0);
if (failed !== undefined) process.exit(failed);
