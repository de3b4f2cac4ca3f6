/**
 * `npm run build`: the bridge's own modules bundled into dist/src/cli.js and
 * a few chunks (dist/src/chunks/), one per group of modules loaded together
 * (the dynamic imports: the warm-up, the doctor, oxp-server, tracing, ...).
 * Packages stay external, they load from node_modules as installed, but the
 * call path's (BUNDLED), which load after start-up.
 *
 * Why a bundle: Node 20 loads each ES module with its own resolve, file read
 * and compile, and the ~70 of the bridge's own modules on the path to the
 * first `/readyz` cost ~20 ms of a ~210 ms start (bench/README.md, "Start-up").
 * Bundling packages too was tried and was slower (5 MB to parse before
 * listening). `npm run build` checks the types with `tsc` before this runs (package.json); `npm start` does
 * not (`npm test` does): it runs this with `--if-stale`, which does nothing when dist/ is newer than every source
 * it is built from, so a restart starts at once (docs/design.md).
 *
 * `buildOptions` is also what bench/variants.ts builds its variants with (into dist-bench/), so that a variant
 * differs from the shipped build only by its edits; importing this module builds nothing.
 */
import { build } from 'esbuild';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Written once a build has succeeded, with the time the build started: a source saved while it ran is newer. Outside
 * dist/src, which is what the package ships.
 */
const STAMP = 'dist/.build-stamp';
/** What the bundle is made from besides src/: a change to one of these makes it stale too. */
const INPUTS = ['scripts/build.mjs', 'package.json', 'package-lock.json', 'tsconfig.json'];

/** The newest modification under `dir` (directories too: adding, removing or renaming a file changes its folder's). */
function newest(dir) {
  let latest = statSync(dir).mtimeMs;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) latest = Math.max(latest, newest(path));
    else if (!entry.name.endsWith('.test.ts')) latest = Math.max(latest, statSync(path).mtimeMs);
  }
  return latest;
}

/** `--if-stale` (npm start's prestart): nothing to do when the last build is newer than everything it was built from. */
function upToDate() {
  if (!existsSync(STAMP) || !existsSync('dist/src/cli.js')) return false;
  const built = statSync(STAMP).mtimeMs;
  return newest('src') < built && INPUTS.every((f) => !existsSync(f) || statSync(f).mtimeMs < built);
}

/**
 * Packages bundled into the chunks that import them, rather than left to node_modules: the call path's, which the
 * bridge loads after start-up by a dynamic import (forward/bridge/call-libraries.ts): undici, and ajv with its
 * dependencies. As installed, each of their many small CommonJS files costs Node 20 a resolve, a read and a compile:
 * loading ajv 2020 and making an instance ~200 M instructions, ~76 M bundled; undici ~400 M, ~260 M bundled
 * (bench/README.md, issue 39). Every other package stays external.
 */
const BUNDLED = new Set(['undici', 'ajv', 'fast-deep-equal', 'fast-uri', 'json-schema-traverse', 'require-from-string']);

/** The package a bare specifier names (`@scope/name`, or `name`), for BUNDLED. */
const packageOf = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/** An esbuild plugin: every package external but BUNDLED's (`packages: 'external'` with exceptions). */
const externalButBundled = {
  name: 'external-but-bundled',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => (BUNDLED.has(packageOf(args.path)) ? undefined : { path: args.path, external: true }));
  },
};

/**
 * A bundled CommonJS package requires Node's builtins, through esbuild's `__require`, which in an ES module finds no
 * `require` unless its chunk defines one. Defined in that chunk only: as a banner of every chunk (esbuild's usual
 * answer) it cost the start-up ~10 M instructions (a `createRequire` per chunk). Added last, before the source map's
 * comment, so that the map's lines stay; a `var`, which `__require` reads when a bundled module first requires.
 */
const requireForBundled = {
  name: 'require-for-bundled',
  setup(build) {
    build.onEnd((result) => {
      for (const file of Object.keys(result.metafile?.outputs ?? {})) {
        if (!file.endsWith('.js')) continue;
        const text = readFileSync(file, 'utf8');
        if (!text.includes('Dynamic require of "')) continue;
        const at = text.lastIndexOf('//# sourceMappingURL=');
        const line = "import { createRequire as createRequireOfBundled } from 'node:module';\nvar require = createRequireOfBundled(import.meta.url);\n";
        writeFileSync(file, at < 0 ? text + line : text.slice(0, at) + line + text.slice(at));
      }
    });
  },
};

/** esbuild's options for the bundle written to `outdir`. */
export function buildOptions(outdir = 'dist/src') {
  return {
    entryPoints: ['src/cli.ts'],
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    plugins: [externalButBundled, requireForBundled],
    metafile: true,
    chunkNames: 'chunks/[name]-[hash]',
    // No keepNames: it wraps every closure in a defineProperty call, also the ones made per request (+5–10 % CPU
    // per call in bench:ab); errors name themselves (`this.name = ...`), and names change only on a collision.
    // A stack trace names lines of the bundle; the source map maps them back with `node --enable-source-maps`.
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'warning',
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--if-stale') && upToDate()) process.exit(0);
  const started = new Date();
  rmSync(STAMP, { force: true });
  rmSync('dist/src', { recursive: true, force: true });
  await build(buildOptions());
  closeSync(openSync(STAMP, 'w'));
  utimesSync(STAMP, started, started);
}
