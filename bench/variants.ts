/**
 * Bench-only builds of the bridge: the shipped bundle (scripts/build.mjs's options) with one per-call feature switched
 * off, or the log written another way, each in dist-bench/<name>/ (git-ignored). Nothing of this is in the sources or
 * in dist/: a variant is a list of edits, each a snippet of source text that must occur exactly once in a file of that
 * name under src/ (wherever the file has moved) and its replacement, applied while esbuild reads the file. A snippet
 * that is no longer found fails the build and names itself: update it here, beside the source it follows.
 *
 *   node --import tsx bench/variants.ts [name ...]     build the named variants (default: all), print their CLIs
 *   node --import tsx bench/variants.ts --list         what each one changes
 *
 * `all-on` has no edit: the same build with every feature on, built the same way (the baseline of bench/features.ts).
 */
import { build, type Plugin } from 'esbuild';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOptions } from '../scripts/build.mjs';
import { REPO_ROOT } from './lib/procs.js';

interface Edit {
  /** The file's name (any folder under src/). */
  file: string;
  /** Text, or a pattern where the text names something that moves (an import's path: `$1` in `replace` keeps it). */
  find: string | RegExp;
  replace: string;
}

/** How many times `find` occurs in `text`. */
function occurrences(text: string, find: string | RegExp): number {
  return typeof find === 'string' ? text.split(find).length - 1 : (text.match(new RegExp(find.source, `${find.flags.replace('g', '')}g`)) ?? []).length;
}

export interface Variant {
  name: string;
  /** What is off (or different), for the tables. */
  what: string;
  edits: Edit[];
}

/** The classification the bench's two requests get from the SDK's rules, as a literal (right for them only). */
const LITERAL_CLASSIFICATION = `  const hotLiteral = body as { id: number; method: 'tools/call'; params: { name: string; _meta?: Record<string, unknown> } };
  const hotRequest = { method: hotLiteral.method, id: hotLiteral.id, params: hotLiteral.params };
  const hotMeta = hotLiteral.params._meta;
  const hotClaim = headers['mcp-protocol-version'] as string;
  if (hotClaim === '2026-07-28') return { outcome: { kind: 'modern', messageKind: 'request', message: body as never, classification: { era: 'modern', revision: hotClaim } }, request: hotRequest, body: hotLiteral, meta: hotMeta, answerable: true };
  return { outcome: { kind: 'legacy', reason: 'no-claim', requestedVersion: hotClaim }, request: hotRequest, body: hotLiteral, meta: hotMeta, answerable: true };
`;

export const VARIANTS: readonly Variant[] = [
  { name: 'all-on', what: 'nothing: every feature on (the baseline)', edits: [] },
  {
    name: 'no-metrics',
    what: 'metrics: the per-call request counter and the upstream latency histogram',
    edits: [
      {
        file: 'gate-record.ts',
        find: "this.metrics?.countCall(call.revision, call.upstream !== undefined ? (call.toolName ?? '') : '(unknown)', call.upstream ?? '', call.outcome, call.caller);",
        replace: '',
      },
      { file: 'call-runner.ts', find: 'this.metrics?.observeAttempt(this.upstream, outcome.kind, (performance.now() - started) / 1000);', replace: '' },
    ],
  },
  {
    name: 'no-access',
    what: "access and limits: the policy's decision and the limit's admission",
    edits: [
      // The call gate's `open`: allowed, no rule, so no limit is charged either (FREE_ADMISSION).
      {
        file: 'gate.ts',
        find: 'call.tool = tool;\n    const decision = this.access.decide(tool, call.caller);',
        replace: 'call.tool = tool;\n    const decision: AccessDecision = { allow: true };',
      },
    ],
  },
  {
    name: 'no-validation',
    what: "input validation: the request's official-schema check and the tool's input-schema check",
    edits: [
      {
        file: 'hot-path.ts',
        find: 'return validate?.(hot.body) ? hot.request : undefined;',
        replace: 'return validate ? hot.request : undefined;',
      },
      {
        file: 'call-inputs.ts',
        find: 'const parameterErrors = validator.check({ id: entry.callId, inputSchema: entry.tool.inputSchema }, clientInput);',
        replace: 'const parameterErrors = undefined as ReturnType<InputValidator["check"]>;',
      },
    ],
  },
  {
    name: 'no-trace-sites',
    what: "the trace call sites with tracing off: the request's and the attempt's span start and end",
    edits: [
      {
        file: 'bridge.ts',
        find: "const span = tracer().start('tools/call', { kind: 'server', parent: ctx.traceparent });",
        replace: 'const span = NOOP_SPAN;',
      },
      { file: 'tool-call.ts', find: /\n\s*span\.end\(\);(\n\s*\}\n\}\n)/, replace: '$1' },
      {
        file: 'call-runner.ts',
        find: "const spans = tracer();\n      const span = spans.enabled ? spans.start('POST /tools/call', { kind: 'client', parent }) : NOOP_SPAN;",
        replace: 'const span = NOOP_SPAN;',
      },
      {
        file: 'call-runner.ts',
        find: /import \{ NOOP_SPAN, tracer, type Attributes, type TraceSpan \} from '([^']+)';/,
        replace: "import { NOOP_SPAN, type Attributes, type TraceSpan } from '$1';",
      },
      { file: 'call-runner.ts', find: /\n\s*if \(span\.recording\) this\.endAttempt\(span, call, attempt, outcome\);\n\s*span\.end\(\);/, replace: '' },
    ],
  },
  {
    name: 'no-hot-classify',
    what: "the hot classification: the bridge's check of a plain tools/call replaced by the bench requests' literal outcome",
    edits: [
      {
        file: 'hot-classify.ts',
        find: "  if (httpMethod !== 'POST' || !isPlainObject(body) || !onlyKeys(body, REQUEST_MEMBERS) || body.jsonrpc !== '2.0') return undefined;\n",
        replace: LITERAL_CLASSIFICATION,
      },
    ],
  },
  // How the log is written (issue 33): the same lines and batches, another writer. For bench:ab against all-on.
  {
    name: 'log-thread-pool',
    what: "the log's batches written on libuv's thread pool (fs.write), as pino's asynchronous destination did",
    edits: [{ file: 'log.ts', find: "writes: 'sync',", replace: "writes: 'async'," }],
  },
  {
    name: 'log-per-line',
    what: 'the log written line by line (a write per line, from the main thread)',
    edits: [{ file: 'log.ts', find: 'const FLUSH_CHARS = 4096;', replace: 'const FLUSH_CHARS = 1;' }],
  },
  {
    name: 'log-16k',
    what: 'the log written in batches of 16 KiB',
    edits: [{ file: 'log.ts', find: 'const FLUSH_CHARS = 4096;', replace: 'const FLUSH_CHARS = 16384;' }],
  },
];

/** Applies a variant's edits to the files esbuild reads; counts each edit's matches. */
function editsPlugin(variant: Variant, applied: Map<Edit, number>): Plugin {
  const byFile = new Map<string, Edit[]>();
  for (const e of variant.edits) byFile.set(e.file, [...(byFile.get(e.file) ?? []), e]);
  return {
    name: 'bench-variant',
    setup(b) {
      b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (args) => {
        const edits = byFile.get(basename(args.path));
        if (!edits) return undefined;
        let text = readFileSync(args.path, 'utf8');
        for (const e of edits) {
          applied.set(e, (applied.get(e) ?? 0) + occurrences(text, e.find));
          text = typeof e.find === 'string' ? text.replace(e.find, () => e.replace) : text.replace(e.find, e.replace);
        }
        return { contents: text, loader: 'ts' };
      });
    },
  };
}

/** Builds one variant into dist-bench/<name>/ (the package's layout: src/, and assets/ linked); its CLI's path. */
export async function buildVariant(variant: Variant): Promise<string> {
  const dir = join(REPO_ROOT, 'dist-bench', variant.name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const applied = new Map<Edit, number>();
  const options = buildOptions(join(dir, 'src'));
  // The shipped build's own plugins first (which packages are bundled, a `require` for the bundled CommonJS), then the variant's edits.
  await build({ ...options, absWorkingDir: REPO_ROOT, plugins: [...(options.plugins ?? []), editsPlugin(variant, applied)] });
  const wrong = variant.edits.filter((e) => applied.get(e) !== 1);
  if (wrong.length)
    throw new Error(
      `variant ${variant.name}: ${wrong.map((e) => `${e.file}: ${typeof e.find === 'string' ? JSON.stringify(e.find.slice(0, 80)) : String(e.find)} found ${applied.get(e) ?? 0} times`).join('; ')} (expected once: update bench/variants.ts)`,
    );
  // The console's files, found from the bundle's place as in the package (src/console/assets.ts).
  if (!existsSync(join(dir, 'assets'))) symlinkSync(join(REPO_ROOT, 'assets'), join(dir, 'assets'));
  return join(dir, 'src', 'cli.js');
}

export function variantNamed(name: string): Variant {
  const v = VARIANTS.find((x) => x.name === name);
  if (!v) throw new Error(`no variant ${name}: ${VARIANTS.map((x) => x.name).join(', ')}`);
  return v;
}

async function main(): Promise<void> {
  const names = process.argv.slice(2);
  if (names[0] === '--list') {
    for (const v of VARIANTS) process.stdout.write(`${v.name.padEnd(16)} ${v.what}\n`);
    return;
  }
  for (const v of names.length ? names.map(variantNamed) : VARIANTS) process.stdout.write(`${v.name}: ${await buildVariant(v)}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    process.stderr.write(`variants: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
