/**
 * No import cycles under src/, type-only imports and re-exports included:
 * types flow one way (config/ outwards, core/ inwards), so every module can
 * be read, tested and loaded on its own. A cycle fails with its path.
 * Imports are read by module-references.ts (every form); a dynamic
 * `import()` or a createRequire'd `require()` is how lazy loading breaks a
 * dependency on purpose, so cycles leave them out, but the folder rules below
 * count them: a lazy import is still a dependency.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { moduleReferences } from './module-references.js';

const root = new URL('../../', import.meta.url).pathname;
const src = join(root, 'src');

const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
  });

/** The project modules `file` names, resolved to their .ts files; `lazy` includes `import()` and `require()`. */
export function localImports(file: string, { lazy = false } = {}): string[] {
  const { references } = moduleReferences(file, readFileSync(file, 'utf8'));
  return references
    .filter((r) => r.spec.startsWith('.') && (lazy || (r.kind !== 'dynamic' && r.kind !== 'require')))
    .map((r) => resolve(dirname(file), r.spec.replace(/\.js$/, '.ts')));
}

/** Every cycle's path, found by depth-first search (each cycle reported once, from its first module in sort order). */
export function findCycles(modules: string[]): string[][] {
  const known = new Set(modules);
  const graph = new Map(modules.map((m) => [m, localImports(m).filter((d) => known.has(d))]));
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (m: string) => {
    state.set(m, 'open');
    stack.push(m);
    for (const d of graph.get(m) ?? []) {
      if (state.get(d) === 'open') cycles.push([...stack.slice(stack.indexOf(d)), d]);
      else if (!state.has(d)) visit(d);
    }
    stack.pop();
    state.set(m, 'done');
  };
  for (const m of [...modules].sort()) if (!state.has(m)) visit(m);
  return cycles;
}

it('sees a cycle through any static form, and a lazy import as a dependency but not as a cycle', () => {
  const dir = mkdtempSync(join(tmpdir(), 'import-cycles-'));
  try {
    const write = (name: string, text: string) => (writeFileSync(join(dir, name), text), join(dir, name));
    const modules = [
      write('a.ts', "export type B = typeof import('./b.js');\n"),
      write('b.ts', "export * from './c.js';\n"),
      write('c.ts', "import './a.js';\nexport const later = () => import('./d.js');\n"),
      write('d.ts', "import { createRequire } from 'node:module';\nconst r = createRequire(import.meta.url);\nexport const e = () => r('./c.js');\n"),
    ];
    assert.deepEqual(
      findCycles(modules).map((c) => c.map((m) => relative(dir, m)).join(' → ')),
      ['a.ts → b.ts → c.ts → a.ts'],
    );
    assert.deepEqual(
      localImports(modules[2]!).map((m) => relative(dir, m)),
      ['a.ts'],
    );
    assert.deepEqual(
      localImports(modules[2]!, { lazy: true }).map((m) => relative(dir, m)),
      ['a.ts', 'd.ts'],
    );
    assert.deepEqual(
      localImports(modules[3]!, { lazy: true }).map((m) => relative(dir, m)),
      ['c.ts'],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('src/ has no import cycles (type-only imports included)', () => {
  const cycles = findCycles(files(src)).map((c) => c.map((m) => relative(root, m)).join(' → '));
  assert.deepEqual(cycles, [], `import cycles:\n${cycles.join('\n')}`);
});

it('nothing reaches across: each part imports only what its place allows (type-only and lazy imports included)', () => {
  /** Any module of calls/ but the gate: the limit stores, the audit sinks. */
  const pastTheGate = /\/src\/calls\/(?!gate\.ts$)/;
  const rules: [string, RegExp][] = [
    // The OXP face knows none of its sources (the demo toolkit, the oxp-server command's MCP upstreams).
    ['src/reverse/face', /\/src\/(forward|reverse\/bridge|reverse\/client|demo|commands)\//],
    ['src/forward/face', /\/src\/(reverse|commands)\//],
    // A face reaches limits and the audit trail only through the call gate.
    ['src/forward/face', pastTheGate],
    ['src/reverse/face', pastTheGate],
    // The reverse direction (reverse/face → reverse/bridge → reverse/client) reaches no part of the forward one.
    ['src/reverse', /\/src\/(forward|commands)\//],
    ['src/reverse/client', /\/src\/(forward|reverse\/(face|bridge)|commands)\//],
    ['src/forward', /\/src\/(reverse|commands)\/|\/src\/demo\//],
    // Platform code (net, log, metrics, telemetry, ...) knows no configuration and no part that uses it.
    ['src/platform', /\/src\/(forward|reverse|calls|commands|console|demo|config)\//],
    ['src/calls', /\/src\/(forward|reverse|commands|console|demo)\//],
    // The console reads both commands through its own interfaces (router.ts, BridgeConsoleAuth, OxpConsoleAuth), never a face.
    ['src/console', /\/src\/(forward|reverse)\/face\//],
  ];
  for (const [dir, forbidden] of rules) {
    for (const file of files(join(root, dir))) {
      for (const dep of localImports(file, { lazy: true })) assert.doesNotMatch(dep, forbidden, `${relative(root, file)} imports ${relative(root, dep)}`);
    }
  }
});

it('the configuration is at the edge: config/ imports only itself, the pure core and platform code (type-only imports included)', () => {
  for (const file of files(join(src, 'config'))) {
    for (const dep of localImports(file, { lazy: true })) {
      assert.match(relative(src, dep), /^(config|core|platform)\//, `${relative(root, file)} imports ${relative(root, dep)}: types flow from config/ outwards`);
    }
  }
});

/** Folders of src/ that group parts: each of their sub-folders (or modules) is a part of its own. */
const GROUPS = new Set(['forward', 'reverse', 'calls', 'platform', 'commands']);

/** The part of src/ a module is in (`core`, `forward/face`, `calls/gate.ts`); a module at the root of src/ is a part of its own. */
function partOf(file: string): string {
  const segments = relative(src, file).split('/');
  return GROUPS.has(segments[0]!) && segments.length > 1 ? `${segments[0]}/${segments[1]}` : segments[0]!;
}

/** Which parts of src/ each part loads at run time (type-only imports left out: they load nothing). */
function runTimeParts(): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const file of files(src)) {
    for (const ref of moduleReferences(file, readFileSync(file, 'utf8')).references) {
      if (!ref.spec.startsWith('.') || ref.typeOnly) continue;
      const [from, to] = [partOf(file), partOf(resolve(dirname(file), ref.spec.replace(/\.js$/, '.ts')))];
      if (from !== to) (edges.get(from) ?? edges.set(from, new Set()).get(from)!).add(to);
    }
  }
  return edges;
}

it('no two parts of src/ load each other at run time: the data flows one way', () => {
  const edges = runTimeParts();
  const pairs: string[] = [];
  for (const [a, targets] of edges) for (const b of targets) if (a < b && edges.get(b)?.has(a)) pairs.push(`${a} ↔ ${b}`);
  assert.deepEqual(pairs, []);
});

it('no face imports the console, not even its types or in its tests: the commands mount it, both directions alike', () => {
  const within = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? within(join(dir, name)) : name.endsWith('.ts') ? [join(dir, name)] : []));
  const faces = readdirSync(src)
    .map((part) => join(src, part, 'face'))
    .filter((dir) => existsSync(dir));
  for (const face of ['forward/face', 'reverse/face']) assert.ok(faces.includes(join(src, face)), `${face} is read`);
  for (const file of faces.flatMap(within)) {
    for (const dep of localImports(file, { lazy: true }))
      assert.doesNotMatch(relative(src, dep), /^console\//, `${relative(root, file)} imports ${relative(root, dep)}: mount the console from src/commands/`);
  }
});

it('the console loads neither face: it encodes answers with core/mcp-encode.ts', () => {
  const faces = [...(runTimeParts().get('console') ?? [])].filter((part) => part === 'forward/face' || part === 'reverse/face');
  assert.deepEqual(faces, []);
});
