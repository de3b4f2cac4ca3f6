#!/usr/bin/env node
// `pretest`: the tool packages the tests run, each pinned by its own lockfile
// (the MCP conformance CLI with the Node 22 it needs, the container image's
// Node release). `npm ci` re-installs ~450 MB every time, so a folder is
// installed only when its lockfile differs from the one it was installed from
// (a stamp with the lockfile's SHA-256 beside its node_modules).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const FOLDERS = ['test/conformance/cli', 'test/image-node'];

for (const folder of FOLDERS) {
  const lock = createHash('sha256')
    .update(readFileSync(join(folder, 'package-lock.json')))
    .digest('hex');
  const stamp = join(folder, 'node_modules', '.installed-from-lock');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === lock) continue;
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const run = spawnSync(npm, ['ci', '--prefix', folder, '--no-audit', '--no-fund', '--loglevel=error'], { stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status ?? 1);
  writeFileSync(stamp, `${lock}\n`);
}
