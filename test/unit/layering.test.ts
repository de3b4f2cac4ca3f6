/**
 * Pins the architecture: src/core is pure (no I/O, no Node built-ins, no
 * SDK, no logger), and only the two SDK adapters import the MCP SDK:
 * src/mcp-front/mcp-sdk.ts (server side) and src/mcp-client/mcp-sdk.ts
 * (client side).
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('../../', import.meta.url).pathname;
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
  });
const importsOf = (file: string) => [...readFileSync(file, 'utf8').matchAll(/^\s*import\s+(type\s+)?[^'"]*?from\s+['"]([^'"]+)['"]/gm)].map((m) => ({ typeOnly: Boolean(m[1]), spec: m[2]! }));

it('src/core imports only core modules and pure libraries', () => {
  const allowed = new Set(['semver']);
  for (const file of files(join(root, 'src/core'))) {
    for (const { spec, typeOnly } of importsOf(file)) {
      if (typeOnly || spec.startsWith('./')) continue;
      assert.ok(allowed.has(spec) || /^semver\/functions\/[a-z]+\.js$/.test(spec), `${relative(root, file)} imports ${spec}: core must stay pure`);
    }
  }
});

it('only the SDK adapters import @modelcontextprotocol/* at run time, each its own package', () => {
  const adapters: Record<string, RegExp> = {
    'src/mcp-front/mcp-sdk.ts': /^@modelcontextprotocol\/(server|node|core)(\/|$)/,
    'src/mcp-client/mcp-sdk.ts': /^@modelcontextprotocol\/client(\/|$)/,
  };
  for (const file of files(join(root, 'src'))) {
    const rel = relative(root, file);
    for (const { spec, typeOnly } of importsOf(file)) {
      if (typeOnly || !spec.startsWith('@modelcontextprotocol/')) continue;
      const allowed = adapters[rel];
      assert.ok(allowed?.test(spec), `${rel} imports ${spec}; go through src/mcp-front/mcp-sdk.ts (server) or src/mcp-client/mcp-sdk.ts (client)`);
    }
  }
});

it('only src/telemetry/otel-sdk.ts imports @opentelemetry/* (loaded lazily, only when tracing is on)', () => {
  for (const file of files(join(root, 'src'))) {
    const rel = relative(root, file);
    for (const { spec, typeOnly } of importsOf(file)) {
      if (typeOnly || !spec.startsWith('@opentelemetry/')) continue;
      assert.equal(rel, 'src/telemetry/otel-sdk.ts', `${rel} imports ${spec}; use the facade in src/telemetry/tracer.ts`);
    }
    // The facade reaches the SDK module only through a dynamic import.
    if (rel !== 'src/telemetry/tracer.ts') assert.ok(!/otel-sdk\.js/.test(readFileSync(file, 'utf8')) || rel === 'src/telemetry/otel-sdk.ts', `${rel} must not load otel-sdk.js`);
  }
});
