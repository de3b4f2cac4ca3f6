#!/usr/bin/env node
// Runs every *.test.ts under src/ and test/ with node's own test runner
// (TypeScript through tsx). Node 20's --test takes no globs, so list here.
//
// One pass: every MCP request goes through one pipeline
// (src/mcp-front/pipeline.ts), held to the SDK's answers by
// test/integration/differential.test.ts.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';

const roots = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const flags = process.argv.slice(2).filter((a) => a.startsWith('-'));

function collect(rootList, exclude = () => false) {
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.test.ts') && !exclude(path)) files.push(path);
    }
  };
  for (const root of rootList) {
    if (statSync(root).isDirectory()) walk(root);
    else files.push(root);
  }
  return files.sort();
}

function run(files, env) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...flags, ...files], { stdio: 'inherit', env: { ...process.env, ...env } });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

process.exit(await run(collect(roots.length ? roots : ['src', 'test']), {}));
