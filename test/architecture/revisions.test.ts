/**
 * One table of MCP revisions (issue 38): src/core/mcp-versions.ts is the only module of src/ that names a revision
 * in code. Every other module asks a revision's profile (`profileFor(v).era`, `.tasks`, `.has.*`), so a new revision
 * is one edit there. Read with the TypeScript compiler's parser: a string literal (or a template literal without
 * substitutions) that is an ISO date is a revision named in code; comments, which explain a choice by the revision
 * that made it, are not. Tests and the generated/ folders (validators generated per revision) are not read.
 *
 * And the table's modern revisions are the ones the pinned server SDK serves: the SDK answers a modern request at a
 * revision it does not know "unsupported protocol version" itself, so a table ahead of the SDK would have the
 * bridge's own answers (hot-path.ts) serve a revision its SDK answers refuse.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { Server, createMcpHandler, CLIENT_CAPABILITIES_META_KEY, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import { revisionsOfEra } from '../../src/core/mcp-versions.js';

const root = new URL('../../', import.meta.url).pathname;
const TABLE = 'src/core/mcp-versions.ts';
const DATE = /^\d{4}-\d{2}-\d{2}$/;

const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' ? [] : sources(path);
    return path.endsWith('.ts') && !path.endsWith('.test.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });

/** The revision-like literals of `text`, as `line: '2026-07-28'`. */
export function revisionLiterals(text: string): string[] {
  const source = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && DATE.test(node.text))
      found.push(`${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: '${node.text}'`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

it('finds a revision in code, and not in a comment or a longer string', () => {
  assert.deepEqual(revisionLiterals("// 2025-11-25\nif (v >= '2025-06-18' || v === `2026-07-28`) f('at 2026-07-28');\n/** 2024-11-05 */"), [
    "2: '2025-06-18'",
    "2: '2026-07-28'",
  ]);
});

it(`no module of src/ but ${TABLE} names an MCP revision in code`, () => {
  const files = sources(join(root, 'src'));
  assert.ok(files.length > 100, `only ${files.length} files read: is the walk broken?`);
  const named = files
    .map((path) => relative(root, path))
    .filter((path) => path !== TABLE)
    .flatMap((path) => revisionLiterals(readFileSync(join(root, path), 'utf8')).map((hit) => `${path}:${hit}`));
  assert.deepEqual(named, [], `ask profileFor(version) in ${TABLE} instead`);
  assert.ok(revisionLiterals(readFileSync(join(root, TABLE), 'utf8')).length >= 5, `${TABLE} names the revisions`);
});

it("the table's modern revisions are exactly those the server SDK serves (its server/discover)", async () => {
  const modern = revisionsOfEra('modern');
  const handler = createMcpHandler(() => new Server({ name: 'sdk', version: '1.0.0' }, { capabilities: { tools: {} } }), { legacy: 'reject' });
  const body = {
    jsonrpc: '2.0',
    id: 1,
    method: 'server/discover',
    params: { _meta: { [PROTOCOL_VERSION_META_KEY]: modern[0], [CLIENT_CAPABILITIES_META_KEY]: {} } },
  };
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': modern[0]!,
    'mcp-method': 'server/discover',
  };
  const res = await handler.fetch(new Request('http://127.0.0.1/mcp', { method: 'POST', headers, body: JSON.stringify(body) }));
  const answer = (await res.json()) as { result?: { supportedVersions?: string[] } };
  assert.deepEqual(answer.result?.supportedVersions, modern, JSON.stringify(answer));
});
