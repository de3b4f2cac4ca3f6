/** Types of scripts/build.mjs for bench/variants.ts. */
import type { BuildOptions } from 'esbuild';

export function buildOptions(outdir?: string): BuildOptions;
