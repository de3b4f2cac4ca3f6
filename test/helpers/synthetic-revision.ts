/**
 * A revision the bridge was not written for, made in the one place a revision is added: SYNTHETIC (2027-03-30,
 * the date the next MCP revision is scheduled for) with 2026-07-28's rules, registered in src/core/mcp-versions.ts
 * (`registerRevisionForTest`). Imported FIRST by test/integration/synthetic-revision.test.ts, so every module loaded
 * after it sees the table with SYNTHETIC as its newest revision (modern-revision.ts, the suites' loops over
 * MCP_REVISIONS), and every CLI child process it starts imports it first too (ts-entry.ts `CLI_PRELOADS`). Nothing in
 * src/ changes for it.
 *
 * What a real revision takes besides the table (docs/design.md, A new MCP revision), stood in for here:
 * - its schema and golden files: SYNTHETIC uses 2026-07-28's (mcp-schema.ts `useFilesOf`);
 * - an SDK release that serves it: the pinned SDK (2.4.0) answers a modern request at a revision not in its own
 *   list (`SUPPORTED_MODERN_PROTOCOL_VERSIONS`, not exported) "unsupported protocol version", and its client will
 *   not pin one. Both packages' lists are extended in this process, as a release would extend them; the bridge, the
 *   plain SDK server of differential.test.ts and the test clients read them. The SDK's codec for any modern revision is 2026-07-28's, as a release adding a
 *   revision with the same wire would leave it.
 */
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { registerRevisionForTest } from '../../src/core/mcp-versions.js';
import { useFilesOf } from './mcp-schema.js';
import { CLI_PRELOADS } from './ts-entry.js';

export const RULES_OF = '2026-07-28';
export const SYNTHETIC = registerRevisionForTest('2027-03-30', RULES_OF);
useFilesOf(SYNTHETIC, RULES_OF);

/** An SDK package's own list of the modern revisions it speaks (an internal of the pinned release). */
async function sdkModernRevisions(pkg: string): Promise<string[]> {
  const dist = dirname(realpathSync(fileURLToPath(import.meta.resolve(pkg))));
  for (const name of readdirSync(dist).filter((f) => f.endsWith('.mjs'))) {
    const text = readFileSync(join(dist, name), 'utf8');
    const exported = /\bSUPPORTED_MODERN_PROTOCOL_VERSIONS as (\w+)\b/.exec(text);
    if (!exported || !text.includes('const SUPPORTED_MODERN_PROTOCOL_VERSIONS = [')) continue;
    const chunk = (await import(pathToFileURL(join(dist, name)).href)) as Record<string, unknown>;
    const list = chunk[exported[1]!];
    if (Array.isArray(list)) return list as string[];
  }
  throw new Error(`${pkg} has no SUPPORTED_MODERN_PROTOCOL_VERSIONS list any more: see how this SDK release adds a revision`);
}

// The server SDK (the bridge's, and differential.test.ts's plain server) and the client SDK (the test clients).
for (const pkg of ['@modelcontextprotocol/server', '@modelcontextprotocol/client']) (await sdkModernRevisions(pkg)).push(SYNTHETIC);

// The CLI as a child process (tasks-2026.test.ts) gets the same table and SDK: this module, imported before its entry
// (from the run's JavaScript tree when there is one, as ts-entry.ts runs the CLI itself).
const tree = process.env.TEST_JS_TREE;
CLI_PRELOADS.push(tree ? pathToFileURL(join(tree, 'test/helpers/synthetic-revision.js')).href : import.meta.url);
