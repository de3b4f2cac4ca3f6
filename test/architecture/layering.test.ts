/**
 * Pins the architecture: src/core is pure (no I/O, no Node built-ins, no
 * SDK, no logger), only the two SDK adapters import the MCP SDK
 * (src/forward/face/mcp-server-sdk.ts server side, src/reverse/client/mcp-client-sdk.ts client
 * side), and only src/platform/telemetry/otel-sdk.ts, loaded lazily, imports
 * OpenTelemetry.
 *
 * Every form of import counts (module-references.ts: `import`, `export …
 * from`, `import 'x'`, `import('x')`, a createRequire'd `require('x')`).
 * These rules are about what loads at run time, so type-only references
 * (`import type`, `export type`, `typeof import('x')`) are allowed: they leave
 * nothing behind in the JavaScript.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { moduleReferences, type ModuleReference } from './module-references.js';

const root = new URL('../../', import.meta.url).pathname;
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
  });
const referencesOf = (file: string) => moduleReferences(file, readFileSync(file, 'utf8'));
/** What `file` loads at run time, every form. */
const runtimeImports = (file: string): ModuleReference[] => referencesOf(file).references.filter((r) => !r.typeOnly);
const where = (file: string, r: ModuleReference) => `${relative(root, file)}:${r.line} (${r.kind})`;

it('reads every form of import, and says which load nothing at run time', () => {
  const fixture = `
    import a from 'static-default';
    import { b, type B } from 'static-named';
    import * as c from 'static-namespace';
    import type { D } from 'type-import';
    import { type E, type F } from 'all-marked-type';
    import 'side-effect';
    export { g } from 'export-named';
    export * from 'export-star';
    export * as h from 'export-star-as';
    export type { I } from 'export-type';
    export { type J } from 'export-marked-type';
    import k = require('import-equals');
    import { createRequire as makeRequire } from 'node:module';
    import * as nodeModule from 'module';
    const requireIt = makeRequire(import.meta.url);
    const l = requireIt('required');
    const m = makeRequire(import.meta.url)('required-direct');
    const n = nodeModule.createRequire(import.meta.url)('required-namespace');
    const o = requireIt(flag ? 'required-either' : 'required-or');
    const p = requireIt.resolve('only-resolved');
    async function later() {
      const q = await import('dynamic');
      const r = await import(\`dynamic-template\`);
      type S = typeof import('type-query');
      const t = await import(someName);
      requireIt('computed-' + name);
    }
    const notRequire = (x: string) => x;
    notRequire('not-a-module');
  `;
  const { references, unresolved } = moduleReferences('fixture.ts', fixture);
  const seen = references.map((r) => `${r.kind} ${r.spec}${r.typeOnly ? ' (type only)' : ''}`);
  assert.deepEqual(seen, [
    'import static-default',
    'import static-named',
    'import static-namespace',
    'import type-import (type only)',
    'import all-marked-type (type only)',
    'side-effect side-effect',
    'export export-named',
    'export export-star',
    'export export-star-as',
    'export export-type (type only)',
    'export export-marked-type (type only)',
    'import-equals import-equals',
    'import node:module',
    'import module',
    'require required',
    'require required-direct',
    'require required-namespace',
    'require required-either',
    'require required-or',
    'dynamic dynamic',
    'dynamic dynamic-template',
    'type-query type-query (type only)',
  ]);
  assert.deepEqual(
    unresolved.map((u) => `${u.kind} ${u.text}`),
    ['dynamic import(someName)', "require requireIt('computed-' + name)"],
  );
});

it('every module src/ loads is named by a string literal, so these rules can see it', () => {
  for (const file of files(join(root, 'src'))) {
    for (const u of referencesOf(file).unresolved) assert.fail(`${relative(root, file)}:${u.line} loads a module these checks cannot see: ${u.text}`);
  }
});

it('src/core imports only core modules and pure libraries', () => {
  const allowed = new Set(['semver']);
  for (const file of files(join(root, 'src/core'))) {
    for (const r of runtimeImports(file)) {
      if (r.spec.startsWith('./')) continue;
      assert.ok(allowed.has(r.spec) || /^semver\/functions\/[a-z]+\.js$/.test(r.spec), `${where(file, r)} imports ${r.spec}: core must stay pure`);
    }
  }
});

it('only the SDK adapters import @modelcontextprotocol/* at run time, each its own package', () => {
  const adapters: Record<string, RegExp> = {
    'src/forward/face/mcp-server-sdk.ts': /^@modelcontextprotocol\/(server|node|core)(\/|$)/,
    'src/reverse/client/mcp-client-sdk.ts': /^@modelcontextprotocol\/client(\/|$)/,
  };
  for (const file of files(join(root, 'src'))) {
    for (const r of runtimeImports(file)) {
      if (!r.spec.startsWith('@modelcontextprotocol/')) continue;
      assert.ok(
        adapters[relative(root, file)]?.test(r.spec),
        `${where(file, r)} imports ${r.spec}; go through src/forward/face/mcp-server-sdk.ts (server) or src/reverse/client/mcp-client-sdk.ts (client)`,
      );
    }
  }
});

it('only src/platform/telemetry/otel-sdk.ts imports @opentelemetry/* (loaded lazily, only when tracing is on)', () => {
  const otelSdk = join(root, 'src/platform/telemetry/otel-sdk.ts');
  for (const file of files(join(root, 'src'))) {
    const rel = relative(root, file);
    for (const r of runtimeImports(file)) {
      if (r.spec.startsWith('@opentelemetry/'))
        assert.equal(rel, 'src/platform/telemetry/otel-sdk.ts', `${where(file, r)} imports ${r.spec}; use the facade in src/platform/telemetry/tracer.ts`);
      // The facade reaches the SDK module only through a dynamic import.
      if (r.spec.startsWith('.') && resolve(dirname(file), r.spec.replace(/\.js$/, '.ts')) === otelSdk) {
        assert.ok(
          rel === 'src/platform/telemetry/tracer.ts' && r.kind === 'dynamic',
          `${where(file, r)} loads otel-sdk.js; only tracer.ts may, through import()`,
        );
      }
    }
  }
});

it('only src/calls/limits/redis-connection.ts loads ioredis, through import(): a bridge without store.redis never pays for it', () => {
  for (const file of files(join(root, 'src'))) {
    for (const r of runtimeImports(file)) {
      if (r.spec !== 'ioredis' && !r.spec.startsWith('ioredis/')) continue;
      assert.ok(relative(root, file) === 'src/calls/limits/redis-connection.ts' && r.kind === 'dynamic', `${where(file, r)} loads ${r.spec}`);
    }
  }
});

it('no two modules in src/ share a name, unless they play the same role in the two directions (forward/x/m.ts, reverse/x/m.ts)', () => {
  const byName = new Map<string, string[]>();
  for (const file of files(join(root, 'src'))) {
    const path = relative(join(root, 'src'), file);
    const name = path.slice(path.lastIndexOf('/') + 1);
    (byName.get(name) ?? byName.set(name, []).get(name)!).push(path);
  }
  const clashes = [...byName.values()].filter((paths) => {
    if (paths.length < 2) return false;
    const mirrored = paths.length === 2 && paths.map((p) => p.replace(/^(forward|reverse)\//, '')).every((p, _, all) => p === all[0]);
    return !mirrored || paths[0]!.split('/')[0] === paths[1]!.split('/')[0];
  });
  assert.deepEqual(clashes, []);
});
