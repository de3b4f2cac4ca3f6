/**
 * A comment that names a file names one that exists (issue 38: comments went on naming modules that had moved or
 * gone), as test/docs/links.test.ts holds the docs' links and the bench anchors comments name.
 *
 * Read: every comment of src/**\/*.ts (tests included, the generated/ folders not; comments found with the
 * TypeScript compiler's parser, so a `//` inside a string is not one), and docs/design.md, which names modules by
 * their base names. Found: anything that looks like a file name with an extension of this repository's sources
 * (`.ts`, `.mjs`, `.js`) and any path under one of its folders (`docs/…`, `test/…`). Resolved, first that exists:
 * from the repository's root; from the naming file's folder; from src/; as the end of a path of src/, test/ or
 * scripts/ (so `face/pipeline.ts` and `pipeline.ts` both name src/forward/face/pipeline.ts). A `.js` name stands for
 * its `.ts` source (ESM imports name the output); `dist/` and `node_modules/` are not read.
 *
 * And a symbol a comment attaches to such a file — `` `file.ts` `name` ``, `` file.ts's `name` ``, or
 * `` `file.ts` (`a`, `b`) `` — is declared at the top level of one of the files it names (an export, or the
 * module's own: a comment may point at a private helper by name), `Class.member` by its class.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

const root = new URL('../../', import.meta.url).pathname;

const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' || name === 'node_modules' ? [] : files(path);
    return /\.(ts|mjs)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });

/** Repository paths of the sources a name can resolve to by its end. */
const SOURCES = ['src', 'test', 'scripts'].flatMap((dir) => files(join(root, dir))).map((path) => relative(root, path));
const FOLDERS = /^(src|test|docs|scripts|bench|config|assets|\.ci)\//;

/** The text of every comment of a TypeScript module, with the line it starts on. */
export function commentsOf(text: string): { line: number; text: string }[] {
  const source = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, true);
  const found = new Map<number, string>();
  const add = (ranges: ts.CommentRange[] | undefined) => ranges?.forEach((c) => found.set(c.pos, text.slice(c.pos, c.end)));
  const visit = (node: ts.Node): void => {
    add(ts.getLeadingCommentRanges(text, node.pos));
    add(ts.getTrailingCommentRanges(text, node.end));
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  return [...found].sort((a, b) => a[0] - b[0]).map(([pos, comment]) => ({ line: source.getLineAndCharacterOfPosition(pos).line + 1, text: comment }));
}

const FILE_NAME = /(?<![\w@/.:$-])((?:\.{1,2}\/)*(?:[\w.-]+\/)*[\w-]+(?:\.[\w-]+)*\.(?:ts|mjs|js|md|ya?ml|json))(?![\w/])/g;
const IDENT = '[A-Za-z_$][\\w$]*(?:\\.[A-Za-z_$][\\w$]*)?';
const SYMBOLS = new RegExp(`([\\w./-]+\\.ts)\`?(?:'s)? (?:\`(${IDENT})(?:\\(\\))?\`|\\((\`${IDENT}\`(?:, \`${IDENT}\`)*)\\))`, 'g');

export interface Reference {
  name: string;
  /** Symbols the text attaches to the file. */
  symbols: string[];
}

/** The file names `text` holds, and the symbols attached to each (comment continuation stars read as spaces). */
export function referencesIn(text: string): Reference[] {
  const flat = text.replace(/\s*\n\s*(?:\*(?!\/)|\/\/)?\s*/g, ' ');
  const out: Reference[] = [...flat.matchAll(FILE_NAME)].map((m) => ({ name: m[1]!, symbols: [] }));
  for (const m of flat.matchAll(SYMBOLS)) {
    const symbols = m[2] !== undefined ? [m[2]] : [...m[3]!.matchAll(/`([^`]+)`/g)].map((s) => s[1]!);
    out.push({ name: m[1]!, symbols });
  }
  return out;
}

/** The repository paths `name`, written in `from`, can stand for; none: it names nothing (checked kinds only). */
export function resolve(from: string, name: string): string[] | 'unchecked' {
  if (/^(dist|node_modules)\//.test(name)) return 'unchecked';
  const isSource = /\.(ts|mjs|js)$/.test(name);
  if (!isSource && !FOLDERS.test(name) && !/^\.{1,2}\//.test(name)) return 'unchecked';
  const names = name.endsWith('.js') ? [name, name.replace(/\.js$/, '.ts')] : [name];
  const direct = names.flatMap((n) => [n, join(dirname(from), n), join('src', n)]).filter((p) => !p.startsWith('..') && existsSync(join(root, p)));
  if (direct.length > 0 || !isSource || /^\.{1,2}\//.test(name)) return [...new Set(direct)];
  return SOURCES.filter((p) => names.some((n) => p.endsWith(`/${n}`)));
}

/** Top-level names a module declares (exported or not), and each class's members as `Class.member`. */
function declaredIn(path: string): Set<string> {
  const source = ts.createSourceFile(path, readFileSync(join(root, path), 'utf8'), ts.ScriptTarget.Latest, true);
  const names = new Set<string>();
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement)) for (const d of statement.declarationList.declarations) if (ts.isIdentifier(d.name)) names.add(d.name.text);
    if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause))
      for (const e of statement.exportClause.elements) names.add(e.name.text);
    const named = statement as { name?: ts.Node };
    if (named.name && ts.isIdentifier(named.name)) names.add(named.name.text);
    if ((ts.isClassDeclaration(statement) || ts.isInterfaceDeclaration(statement)) && statement.name)
      for (const member of statement.members) if (member.name && ts.isIdentifier(member.name)) names.add(`${statement.name.text}.${member.name.text}`);
  }
  return names;
}

/** What is wrong with the references of one file's text: `line: name` (or `line: name name`) each. */
export function brokenReferences(from: string, texts: { line: number; text: string }[]): string[] {
  const broken: string[] = [];
  for (const { line, text } of texts) {
    for (const ref of referencesIn(text)) {
      const paths = resolve(from, ref.name);
      if (paths === 'unchecked') continue;
      if (paths.length === 0) broken.push(`${from}:${line}: ${ref.name} (no such file)`);
      const modules = paths.filter((p) => p.endsWith('.ts'));
      for (const symbol of ref.symbols)
        if (modules.length > 0 && !modules.some((p) => declaredIn(p).has(symbol)))
          broken.push(`${from}:${line}: ${ref.name} \`${symbol}\` (not declared there)`);
    }
  }
  return broken;
}

it('reads file names and the symbols attached to them, and resolves them as a reader would', () => {
  const refs = referencesIn('/** See `core/mcp-wire.ts` (`JSONRPC_PARSE_ERROR`, `McpTool`), records.ts\n * `ownerKey`, x.js and https://a.b/c.ts. */');
  assert.deepEqual(
    refs.map((r) => `${r.name}${r.symbols.length ? ` ${r.symbols.join(',')}` : ''}`),
    ['core/mcp-wire.ts', 'records.ts', 'x.js', 'core/mcp-wire.ts JSONRPC_PARSE_ERROR,McpTool', 'records.ts ownerKey'],
  );
  assert.deepEqual(resolve('src/forward/face/pipeline.ts', 'admission.ts'), ['src/forward/face/admission.ts']);
  assert.deepEqual(resolve('src/calls/gate.ts', 'face/pipeline.ts'), ['src/forward/face/pipeline.ts']);
  assert.deepEqual(resolve('src/x.ts', 'mcp-sdk.ts'), []);
  assert.equal(resolve('src/x.ts', 'res.json'), 'unchecked');
  assert.deepEqual(brokenReferences('src/x.ts', [{ line: 3, text: '// `core/mcp-wire.ts` `NO_SUCH_CODE`; gone.ts' }]), [
    'src/x.ts:3: gone.ts (no such file)',
    'src/x.ts:3: core/mcp-wire.ts `NO_SUCH_CODE` (not declared there)',
  ]);
});

it('every file a comment in src/ (or docs/design.md) names exists, and every symbol it attaches is declared there', () => {
  const sources = files(join(root, 'src')).map((path) => relative(root, path));
  assert.ok(sources.length > 150, `only ${sources.length} files read: is the walk broken?`);
  const broken = sources.flatMap((path) => brokenReferences(path, commentsOf(readFileSync(join(root, path), 'utf8'))));
  // By paragraph, so a symbol on the line after its file still attaches to it.
  const text = readFileSync(join(root, 'docs/design.md'), 'utf8');
  const design = [...text.matchAll(/[^\n]+(?:\n[^\n]+)*/g)].map((m) => ({ line: text.slice(0, m.index).split('\n').length, text: m[0] }));
  broken.push(...brokenReferences('docs/design.md', design));
  assert.deepEqual(broken, []);
});
