/**
 * Every JSON-RPC and MCP error code the bridge answers with is named once, in src/core/mcp-wire.ts (issue 38): no
 * other module of src/ spells one as a number. Read with the TypeScript compiler's parser, so comments and strings
 * (which may quote a code to a reader) are not counted: a numeric literal in the JSON-RPC range (-32768 … -32000) is,
 * written as `-32603`, `-32_603` or `-32.603e3` alike. Tests and the generated/ folders are not read.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const root = new URL('../../', import.meta.url).pathname;
const HOME = 'src/core/mcp-wire.ts';

const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' ? [] : sources(path);
    return path.endsWith('.ts') && !path.endsWith('.test.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });

/** `-N` literals of `text` in the JSON-RPC error range, as `line: text`; comments and strings are not code. */
export function errorCodeLiterals(text: string): string[] {
  const source = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.MinusToken && ts.isNumericLiteral(node.operand)) {
      const value = Number(node.operand.text);
      if (value >= 32000 && value <= 32768) found.push(`${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: -${node.operand.getText()}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

it('reads a code written any way, and not one in a comment or a string', () => {
  assert.deepEqual(errorCodeLiterals("// -32601\nconst a = { code: -32603, b: '-32602' };\n/* -32700 */ f(- 32_000, -32.6e3);"), [
    '2: -32603',
    '3: -32_000',
    '3: -32.6e3',
  ]);
  assert.deepEqual(errorCodeLiterals('const x = -31999 - 40000;'), []);
});

it(`no module of src/ but ${HOME} spells a JSON-RPC error code as a number`, () => {
  const files = sources(join(root, 'src'));
  assert.ok(files.length > 100, `only ${files.length} files read: is the walk broken?`);
  const bare = files
    .map((path) => relative(root, path))
    .filter((path) => path !== HOME)
    .flatMap((path) => errorCodeLiterals(readFileSync(join(root, path), 'utf8')).map((hit) => `${path}:${hit}`));
  assert.deepEqual(bare, [], `name these codes in ${HOME} and import them`);
  assert.ok(errorCodeLiterals(readFileSync(join(root, HOME), 'utf8')).length >= 8, `${HOME} names the codes`);
});
