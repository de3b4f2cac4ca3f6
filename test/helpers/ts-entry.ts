/**
 * How tests run a TypeScript entry point of this repository (the CLI, the
 * fixture and hostile servers) as a child process: the node arguments.
 *
 * Through tsx, unless test/run.mjs has transformed src/ and test/ to
 * JavaScript for this run (TEST_JS_TREE, a folder inside the repository, so
 * node_modules and assets/ resolve as they do from the sources): then the
 * same modules from there. The transform is the one tsx applies on the fly
 * (esbuild, file by file, its options), made at the start of the run from
 * the current sources, so it cannot be stale. It saves tsx's loader at
 * every start-up: about half the CPU of starting the bridge, which the
 * suite does about a hundred times on two shared cores.
 */
import { isAbsolute, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** `[...nodeArgs, entry]` for `node`, with tsx's `--import` unless the run's JavaScript tree serves it; `entry` absolute or relative to the repository root. */
export function tsEntryArgs(entry: string, nodeArgs: string[] = []): string[] {
  const tree = process.env.TEST_JS_TREE;
  if (!tree) return ['--import', 'tsx', ...nodeArgs, entry];
  const fromRoot = isAbsolute(entry) ? relative(REPO_ROOT, entry) : entry;
  return [...nodeArgs, join(tree, fromRoot.replace(/\.ts$/, '.js'))];
}

/**
 * Whether the module whose `import.meta.url` is `moduleUrl` is this process's entry point: `process.argv[1]`, a file
 * of the sources or of a run's JavaScript tree (`.test-js-*` at the repository's root, test/run.mjs), where modules
 * keep their source's URL. Read from the path, not TEST_JS_TREE: a server the bridge starts gets only a few of the
 * environment's variables.
 */
export function isEntryPoint(moduleUrl: string): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  const [first, ...rest] = relative(REPO_ROOT, entry).split(sep);
  const source = first?.startsWith('.test-js-') ? join(REPO_ROOT, ...rest).replace(/\.js$/, '.ts') : entry;
  return source === fileURLToPath(moduleUrl);
}

/**
 * Modules every CLI child process imports before its entry point (`--import`): how a test that changed this
 * process's table of MCP revisions gives its children the same one (synthetic-revision.ts). Empty otherwise.
 */
export const CLI_PRELOADS: string[] = [];

/**
 * The CLI (`src/cli.ts`) with `args`: the bundle `npm run build` makes of it (TEST_CLI_BUNDLE, test/run.mjs builds it
 * with scripts/build.mjs's options), as the package ships it. A child that imports modules of its own first
 * (`--import`: CLI_PRELOADS, a crash or records hook) shares their instances with the CLI's only in the unbundled
 * tree, so it runs that.
 */
export function cliArgs(args: string[], nodeArgs: string[] = []): string[] {
  const bundle = process.env.TEST_CLI_BUNDLE;
  if (bundle && CLI_PRELOADS.length === 0 && !nodeArgs.includes('--import')) return [...nodeArgs, bundle, ...args];
  return [...tsEntryArgs('src/cli.ts', [...CLI_PRELOADS.flatMap((url) => ['--import', url]), ...nodeArgs]), ...args];
}
