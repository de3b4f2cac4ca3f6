#!/usr/bin/env node
// Runs every *.test.ts under src/ and test/ with node's own test runner, from
// the JavaScript esbuild makes of them at the start of the run (buildJsTree:
// what tsx would make, without its loader in every process). A report names
// a test's file in that tree (.test-js-*/…/x.test.js for …/x.test.ts).
// Node 20's --test takes no globs, so list here.
//
// One pass over everything: every MCP request goes through one pipeline
// (src/forward/face/pipeline.ts), held to the SDK's answers by
// test/integration/differential.test.ts; beside it, a representative subset
// again on the Node release the container image runs.
//
// Wall time: most files wait on I/O (child processes starting, timers of the
// cases under test), so TEST_CONCURRENCY files run at once, the longest ones
// first (a long file started last would run alone at the end), and the
// image-Node pass runs beside the main pass (its report is printed after it).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawn } from 'node:child_process';
import { hurry, runChecks } from './checks.mjs';
import { installTestTools } from '../scripts/install-test-tools.mjs';

const started = Date.now();
const roots = process.argv.slice(2).filter((a) => !a.startsWith('-'));
/** `--checks`: also the type check, the formatting and the lint, beside the tests (test/checks.mjs); `npm test` passes it. */
const withChecks = process.argv.includes('--checks');
const flags = process.argv.slice(2).filter((a) => a.startsWith('-') && a !== '--checks');

/** Files at once in the main pass; every test allows for a loaded machine (test/README.md). */
const TEST_CONCURRENCY = 3;
/**
 * The longest files, started first; only the order depends on this list (a run writes every file's time to
 * test/artifacts/file-durations.tsv). Ordered by the longest alone, a quiet clean-clone run took 341-346 s (twice,
 * 2026-12-08): the Chromium suites and the docs examples then started together with the floods; this order took 289 s.
 * faults.test.ts varies most with the load (32-68 s alone). The conformance files run in a pass of their own.
 */
const LONGEST_FIRST = [
  'test/integration/faults.test.ts',
  'test/hostile/forward-tasks.test.ts',
  'test/hostile/face.test.ts',
  'test/docs/examples.test.ts',
  'test/console/layout.test.ts',
  'test/integration/tasks-2025.test.ts',
  'test/package/pack.test.ts',
  'test/integration/tasks-2026.test.ts',
  'test/console/principals.test.ts',
  'test/integration/tracing.test.ts',
  'test/integration/log-flush.test.ts',
  'test/integration/oxp-server-tasks.test.ts',
  'test/integration/shutdown-drain.test.ts',
  'test/integration/command-settings.test.ts',
  'test/integration/stdio.test.ts',
  'test/hostile/schemas.test.ts',
  'test/integration/synthetic-revision.test.ts',
  'test/integration/resilience.test.ts',
  'test/integration/wire-variants.test.ts',
  'test/integration/limit-store-redis.test.ts',
  'test/integration/oxp-server-cli.test.ts',
  'test/integration/oxp-server-upstreams.test.ts',
  'test/integration/oxp-server-real.test.ts',
  'test/hostile/secrets-urls.test.ts',
];

/** Every .ts file under `dir`, tests too (no declarations, no node_modules). */
function sources(dir, files = []) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sources(path, files);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) files.push(path);
  }
  return files;
}

/**
 * src/, test/ and scripts/ (the generator a test runs) as JavaScript, the test files too: the transform tsx makes on the fly (esbuild, file by file, tsx's
 * options), once, from the current sources, into a folder inside the repository (node_modules resolve as from the
 * sources). The test files run from there, and so do the child processes tests start (test/helpers/ts-entry.ts):
 * tsx's loader cost each process about 0.2-0.3 s of CPU at start-up, about 50 s of a run's (test/README.md,
 * "Towards five minutes"). Each module keeps its source's `import.meta.url`, so that a test finds its fixtures, the
 * schemas and the repository's files as it does from the sources. Removed when the run ends.
 */
async function buildJsTree() {
  const { build } = createRequire(import.meta.resolve('tsx'))('esbuild');
  const tree = mkdtempSync(join(process.cwd(), '.test-js-'));
  await build({
    entryPoints: [...sources('src'), ...sources('test'), ...sources('scripts')],
    outdir: tree,
    outbase: '.',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    keepNames: true,
    logLevel: 'warning',
    plugins: [sourceUrls],
  });
  return tree;
}

/**
 * esbuild plugin: `import.meta.url` in each module written as its source's URL (esbuild's `define`, per file: an
 * expression, never inside a string).
 */
const sourceUrls = {
  name: 'source-urls',
  setup(build) {
    const tsconfigRaw = readFileSync('tsconfig.json', 'utf8');
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      const url = JSON.stringify(pathToFileURL(args.path).href);
      const { code } = await build.esbuild.transform(readFileSync(args.path, 'utf8'), {
        loader: 'ts',
        sourcefile: args.path,
        tsconfigRaw,
        define: { 'import.meta.url': url },
      });
      return { contents: code, loader: 'js' };
    });
  },
};

/**
 * The CLI as `npm run build` bundles it (scripts/build.mjs's options), for the CLI child processes tests start
 * (test/helpers/ts-entry.ts `cliArgs`): the package's own form, and ~0.1 s of CPU cheaper to start than the tree's
 * ~150 modules, paid by each of the run's ~175 bridge children. Beside the tree (`<tree>-cli/src/`), at the depth
 * dist/src has, so the console's assets and node_modules resolve as from dist/.
 */
async function buildCliBundle(tree) {
  const { buildOptions } = await import('../scripts/build.mjs');
  const { build } = await import('esbuild');
  const outdir = `${tree}-cli/src`;
  await build({ ...buildOptions(outdir), sourcemap: false });
  return join(outdir, 'cli.js');
}

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
  const rank = (f) => (LONGEST_FIRST.includes(f) ? LONGEST_FIRST.indexOf(f) : LONGEST_FIRST.length);
  return files.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** Each file's wall time (test/file-durations.mjs), for the slowest ten printed at the end of a run. */
const durationsDir = mkdtempSync(join(tmpdir(), 'test-durations-'));
const durations = join(durationsDir, 'files.tsv');
const conformanceDurations = join(durationsDir, 'conformance.tsv');

/** A test file's JavaScript in the run's tree (buildJsTree). */
const inTree = (file) => join(tree, relative(process.cwd(), file).replace(/\.ts$/, '.js'));
/** The source of a file of the run's tree, relative to the repository: what a report names. */
const ofTree = (file) => (file === join(tree, UNIT_LANE) ? UNIT_LANE_NAME : relative(tree, file).replace(/\.js$/, '.ts'));

/**
 * The unit lane: the unit tests (src/) and the architecture checks, one process for all of them (a module in the
 * tree that imports each file, in order): each file's own process cost more than its tests (~0.2 s of CPU, 82 files;
 * the lane takes ~13 s of CPU where its files took ~70 s one process each, test/README.md). Its files share that
 * process, so a file that changes the process's state for good runs in a process of its own (UNIT_ALONE).
 */
const UNIT_LANE = 'unit-lane.test.js';
const UNIT_LANE_NAME = 'the unit lane (src/ and test/architecture/, one process)';
const UNIT_ALONE = [
  // registerRevisionForTest: adds a revision to the process's table of MCP revisions, for good.
  'src/core/mcp-versions.test.ts',
];
const inUnitLane = (file) => /^(src|test\/architecture)\//.test(relative(process.cwd(), file)) && !UNIT_ALONE.includes(relative(process.cwd(), file));

/** The test files' JavaScript to run: the unit lane's files as one module (written into the tree), then the rest. */
function entries(files) {
  const lane = files.filter(inUnitLane);
  if (lane.length < 2) return files.map(inTree);
  const imports = lane.map((file) => `import ${JSON.stringify(pathToFileURL(inTree(file)).href)};\n`).join('');
  writeFileSync(join(tree, UNIT_LANE), imports);
  return [join(tree, UNIT_LANE), ...files.filter((file) => !inUnitLane(file)).map(inTree)];
}

/** Runs `files` with node's test runner; `output` 'inherit' streams the report, 'buffer' keeps it for later. */
function run(files, { node = process.execPath, concurrency, output = 'inherit', timed }) {
  return new Promise((resolve) => {
    const reporters = timed
      ? [
          '--test-reporter',
          process.stdout.isTTY ? 'spec' : 'tap',
          '--test-reporter-destination',
          'stdout',
          '--test-reporter',
          './test/file-durations.mjs',
          '--test-reporter-destination',
          timed,
        ]
      : [];
    const args = ['--test', `--test-concurrency=${concurrency}`, ...reporters, ...flags, ...files];
    const child = spawn(node, args, {
      stdio: output === 'inherit' ? 'inherit' : ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, TEST_JS_TREE: tree, TEST_CLI_BUNDLE: cliBundle },
    });
    const chunks = [];
    child.stdout?.on('data', (c) => chunks.push(c));
    child.stderr?.on('data', (c) => chunks.push(c));
    child.on('exit', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), report: Buffer.concat(chunks) }));
  });
}

// The Node release the container image runs (Dockerfile NODE_IMAGE), pinned in test/image-node/ and installed
// as the run starts (installTestTools): a representative subset (HTTP with every client and revision, stdio,
// oxp-server, operations).
const IMAGE_NODE = 'test/image-node/node_modules/.bin/node';
/** The files that run the MCP conformance CLI (test/conformance/cli): a pass of their own, once it is installed. */
const NEEDS_CONFORMANCE_CLI = ['test/conformance/conformance.test.ts', 'test/conformance/client-conformance.test.ts'];
const IMAGE_NODE_SUITES = [
  'test/integration/stdio.test.ts',
  'test/integration/http-clients.test.ts',
  'test/integration/oxp-server-protocol.test.ts',
  'test/integration/operations.test.ts',
];

const checks = withChecks ? runChecks() : undefined;
const tree = await buildJsTree();
process.on('exit', () => rmSync(tree, { recursive: true, force: true }));
const cliBundle = await buildCliBundle(tree);
process.on('exit', () => rmSync(`${tree}-cli`, { recursive: true, force: true }));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(1));

const files = collect(roots.length ? roots : ['src', 'test']);
const conformance = files.filter((file) => NEEDS_CONFORMANCE_CLI.includes(relative(process.cwd(), file)));
const wholeSuite = roots.length === 0;
// The tool folders install while the main pass starts; the passes that run them start once they are in.
const tools = wholeSuite || conformance.length > 0 ? installTestTools({ quiet: true }) : Promise.resolve({ code: 0, report: '' });
const main = run(entries(files.filter((file) => !conformance.includes(file))), { concurrency: TEST_CONCURRENCY, timed: durations });
const later = tools.then(async (installed) => {
  if (installed.code !== 0) return [{ title: 'installing the tool folders', code: 1, report: Buffer.from(installed.report) }];
  const passes = [];
  if (conformance.length > 0) {
    const pass = run(conformance.map(inTree), { concurrency: 1, output: 'buffer', timed: conformanceDurations });
    passes.push(pass.then((r) => ({ title: 'conformance pass: the MCP conformance suites (test/conformance/cli), one file at a time', ...r })));
  }
  if (wholeSuite) {
    const pass = run(IMAGE_NODE_SUITES.map(inTree), { node: IMAGE_NODE, concurrency: 1, output: 'buffer' });
    passes.push(pass.then((r) => ({ title: "image Node pass: HTTP, stdio, oxp-server and operations suites on the container image's Node release", ...r })));
  }
  return Promise.all(passes);
});
let { code } = await main;
for (const pass of await later) {
  process.stdout.write(`# ${pass.title}\n`);
  process.stdout.write(pass.report);
  if (code === 0) code = pass.code;
}
if (checks) {
  hurry();
  const result = await checks;
  process.stdout.write(result.report);
  if (code === 0) code = result.code;
}
printSlowest();
process.exit(code);

/** The ten slowest files of the main pass and the run's wall time: where a slower suite comes from. */
function printSlowest() {
  const byFile = new Map();
  for (const tsv of [durations, conformanceDurations].filter((f) => existsSync(f)))
    for (const line of readFileSync(tsv, 'utf8').split('\n').filter(Boolean)) {
      const [ms, file] = line.split('\t');
      byFile.set(file, (byFile.get(file) ?? 0) + Number(ms));
    }
  rmSync(durationsDir, { recursive: true, force: true });
  if (byFile.size === 0) return;
  const rows = [...byFile].map(([file, ms]) => ({ ms, file: ofTree(file) })).sort((a, b) => b.ms - a.ms);
  // Every file's, for ordering LONGEST_FIRST: test/artifacts/ (git-ignored).
  mkdirSync('test/artifacts', { recursive: true });
  writeFileSync('test/artifacts/file-durations.tsv', rows.map((r) => `${r.ms}\t${r.file}\n`).join(''));
  const lines = rows.slice(0, 10).map((r) => `#   ${(r.ms / 1000).toFixed(1).padStart(6)} s  ${r.file}`);
  const total = ((Date.now() - started) / 1000).toFixed(0);
  process.stdout.write(
    `# the ten slowest files (the time in their tests, ${TEST_CONCURRENCY} files at a time), of ${rows.length}; this run took ${total} s\n${lines.join('\n')}\n`,
  );
}
