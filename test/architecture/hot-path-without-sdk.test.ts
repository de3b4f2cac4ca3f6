/**
 * The MCP pipeline answers the two hot shapes (plain tools/call and tools/list) without the MCP server SDK loaded
 * (issue 39): the first such request after ready waits for the pipeline's load, not the SDK's, the warm-up's largest
 * (docs/design.md, "One pipeline"). So no module the pipeline loads when it loads (every import that is not type-only,
 * dynamic or a `require()`) may reach src/forward/face/mcp-server-sdk.ts or an `@modelcontextprotocol/*` package; the
 * SDK comes in through lazy-sdk.ts's `import()` alone. Fails with the chain that reaches it.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { moduleReferences } from './module-references.js';

const root = new URL('../../', import.meta.url).pathname;

/** The chain from `file` to the SDK through eager imports, or undefined. */
function reachesSdk(file: string, seen = new Set<string>(), chain: string[] = []): string[] | undefined {
  if (seen.has(file)) return undefined;
  seen.add(file);
  const here = [...chain, relative(root, file)];
  if (file.endsWith('/forward/face/mcp-server-sdk.ts')) return here;
  const { references } = moduleReferences(file, readFileSync(file, 'utf8'));
  for (const r of references) {
    if (r.typeOnly || r.kind === 'dynamic' || r.kind === 'require') continue;
    if (r.spec.startsWith('@modelcontextprotocol/')) return [...here, r.spec];
    if (!r.spec.startsWith('.')) continue;
    const found = reachesSdk(resolve(dirname(file), r.spec.replace(/\.js$/, '.ts')), seen, here);
    if (found) return found;
  }
  return undefined;
}

it('the MCP pipeline loads without the SDK', () => {
  const chain = reachesSdk(join(root, 'src/forward/face/pipeline.ts'));
  assert.equal(chain, undefined, `the pipeline loads the SDK: ${chain?.join(' → ')}`);
});
