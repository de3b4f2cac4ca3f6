#!/usr/bin/env node
// Runs every *.test.ts under src/ and test/ with node's own test runner
// (TypeScript through tsx). Node 20's --test takes no globs, so list here.
//
// One pass over everything: every MCP request goes through one pipeline
// (src/mcp-front/pipeline.ts), held to the SDK's answers by
// test/integration/differential.test.ts; then a representative subset again
// on the Node release the container image runs.
import { existsSync, readdirSync, statSync } from 'node:fs';
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

function run(files, env, node = process.execPath) {
  return new Promise((resolve) => {
    const child = spawn(node, ['--import', 'tsx', '--test', '--test-concurrency=2', ...flags, ...files], { stdio: 'inherit', env: { ...process.env, ...env } });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

let code = await run(collect(roots.length ? roots : ['src', 'test']), {});

// The Node release the container image runs (Dockerfile NODE_IMAGE), pinned in test/image-node/ and installed
// by pretest: a representative subset (HTTP with every client and revision, stdio, oxp-server, operations).
const IMAGE_NODE = 'test/image-node/node_modules/.bin/node';
const IMAGE_NODE_SUITES = ['test/integration/http-clients.test.ts', 'test/integration/stdio.test.ts', 'test/integration/oxp-server-protocol.test.ts', 'test/integration/operations.test.ts'];
if (code === 0 && roots.length === 0) {
  if (!existsSync(IMAGE_NODE)) {
    process.stderr.write(`${IMAGE_NODE} is missing: run \`npm ci --prefix test/image-node --no-audit --no-fund\` (the pretest script does)\n`);
    code = 1;
  } else {
    process.stdout.write("# image Node pass: HTTP, stdio, oxp-server and operations suites on the container image's Node release\n");
    code = await run(IMAGE_NODE_SUITES, {}, IMAGE_NODE);
  }
}
process.exit(code);
