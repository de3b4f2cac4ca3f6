/**
 * No function in src/ over 60 lines (issue 25): a function that long does
 * several jobs (state, wiring, policy) that read, test and change better
 * apart. Data literals are the exception: a list of demo tools is long
 * because it is a list, not because it mixes jobs.
 *
 * Read with the TypeScript compiler's parser (as module-references.ts reads
 * imports): every function-like node that has a body — function
 * declarations and expressions, arrow functions, methods, constructors, get
 * and set accessors — nested ones included. A function's length is the lines
 * from its first line (its signature; the comment above it is not counted)
 * to the last line of its body, as Prettier laid it out. Tests and the
 * generated/ folders (precompiled validators) are not read.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const MAX_LINES = 60;

/**
 * The only functions allowed over MAX_LINES, as `path: name` (names as
 * longFunctions gives them) → why. An entry whose function is no longer too
 * long fails the check too, so the list only shrinks.
 */
const ALLOWED = new Map<string, string>([
  // One `return [...]` of the demo tools, each a few lines of schema and a one-line `run`: splitting it would only scatter the list.
  ['src/demo/demo-toolkit.ts: demoTools', 'a data literal'],
]);

const root = new URL('../../', import.meta.url).pathname;

/** Every src/ module read: no tests, nothing generated. */
const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' ? [] : sources(path);
    return path.endsWith('.ts') && !path.endsWith('.test.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });

export interface LongFunction {
  /** `Class.method`, `outer > inner`, `(anonymous)` where nothing names it. */
  name: string;
  /** 1-based first line. */
  line: number;
  lines: number;
}

type WithBody = ts.FunctionLikeDeclaration & { body: ts.Node };

const hasBody = (node: ts.Node): node is WithBody =>
  (ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)) &&
  node.body !== undefined;

/** A function's own name, else the name it is bound to (`const f = () => …`, `{ f: () => … }`, `f = …`). */
function ownName(node: WithBody, source: ts.SourceFile): string {
  const owner = ts.isClassLike(node.parent) ? `${node.parent.name?.text ?? '(class)'}.` : '';
  if (ts.isConstructorDeclaration(node)) return `${owner}constructor`;
  if (node.name) return owner + node.name.getText(source);
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name)
    return (ts.isPropertyDeclaration(parent) && ts.isClassLike(parent.parent) ? `${parent.parent.name?.text ?? '(class)'}.` : '') + parent.name.getText(source);
  if (ts.isBinaryExpression(parent) && parent.operatorToken.kind === ts.SyntaxKind.EqualsToken) return parent.left.getText(source);
  return '(anonymous)';
}

/** Every function in `text` longer than `max` lines, nested ones named after the functions around them. */
export function longFunctions(fileName: string, text: string, max = MAX_LINES): LongFunction[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line + 1;
  const found: LongFunction[] = [];
  const visit = (node: ts.Node, outer: string): void => {
    if (!hasBody(node)) return ts.forEachChild(node, (child) => visit(child, outer));
    const name = (outer ? `${outer} > ` : '') + ownName(node, source);
    const line = lineOf(node.getStart(source));
    const lines = lineOf(node.body.getEnd()) - line + 1;
    if (lines > max) found.push({ name, line, lines });
    ts.forEachChild(node, (child) => visit(child, name));
  };
  visit(source, '');
  return found;
}

it('finds every kind of function over the limit, nested ones by their full name, and nothing at the limit', () => {
  const body = (n: number) => Array.from({ length: n - 2 }, (_, i) => `  void ${i};`).join('\n');
  const fixture = [
    `function declared() {\n${body(61)}\n}`,
    `function atTheLimit() {\n${body(60)}\n}`,
    `const arrow = () => {\n${body(61)}\n};`,
    `const expression = function () {\n${body(61)}\n};`,
    `const literal = { method() {\n${body(61)}\n}, property: () => {\n${body(61)}\n} };`,
    `class C {\n  constructor() {\n${body(61)}\n}\n  get value() {\n${body(61)}\n}\n  set value(v) {\n${body(61)}\n}\n  method() {\n${body(61)}\n}\n  field = () => {\n${body(61)}\n};\n}`,
    `export function outer() {\n  const inner = () => {\n${body(61)}\n  };\n  return inner;\n}`,
    `function signature(\n  a: number,\n  b: number,\n) {\n${body(59)}\n}`,
  ].join('\n');
  assert.deepEqual(
    longFunctions('fixture.ts', fixture).map((f) => `${f.name} ${f.lines}`),
    [
      'declared 61',
      'arrow 61',
      'expression 61',
      'method 61',
      'property 61',
      'C.constructor 61',
      'C.value 61',
      'C.value 61',
      'C.method 61',
      'C.field 61',
      'outer 64',
      'outer > inner 61',
      // The signature counts: 4 lines of it and 59 of body.
      'signature 62',
    ],
  );
});

it(`no function in src/ is over ${MAX_LINES} lines, except the data literals allowed above`, () => {
  const found = new Map<string, LongFunction>();
  for (const file of sources(join(root, 'src'))) {
    const path = relative(root, file);
    for (const f of longFunctions(path, readFileSync(file, 'utf8'))) found.set(`${path}: ${f.name}`, f);
  }
  const tooLong = [...found].filter(([key]) => !ALLOWED.has(key)).map(([key, f]) => `${key} (line ${f.line}): ${f.lines} lines`);
  assert.deepEqual(tooLong, [], `split these along their jobs (state, wiring, policy) into functions of at most ${MAX_LINES} lines:\n${tooLong.join('\n')}`);
  const stale = [...ALLOWED.keys()].filter((key) => !found.has(key));
  assert.deepEqual(stale, [], 'these allowed functions are no longer over the limit (or renamed): drop them from ALLOWED');
});
