/**
 * `npm run build`: the bridge's own modules bundled into dist/src/cli.js and
 * a few chunks (dist/src/chunks/), one per group of modules loaded together
 * (the dynamic imports: the warm-up, the doctor, oxp-server, tracing, ...).
 * Packages stay external: they load from node_modules as installed.
 *
 * Why a bundle: Node 20 loads each ES module with its own resolve, file read
 * and compile, and the ~70 of the bridge's own modules on the path to the
 * first `/readyz` cost ~20 ms of a ~210 ms start (bench/README.md, "Start-up").
 * Bundling packages too was tried and was slower (5 MB to parse before
 * listening). Types are checked by `tsc` before this runs (package.json).
 *
 * `buildOptions` is also what bench/variants.ts builds its variants with (into dist-bench/), so that a variant
 * differs from the shipped build only by its edits.
 */
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

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
    packages: 'external',
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
  rmSync('dist/src', { recursive: true, force: true });
  await build(buildOptions());
}
