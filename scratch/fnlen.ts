import ts from 'typescript';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
function walk(d: string, out: string[] = []) { for (const f of readdirSync(d)) { const p = join(d, f); if (statSync(p).isDirectory()) { if (f !== 'generated') walk(p, out); } else if (p.endsWith('.ts') && !p.endsWith('.test.ts')) out.push(p); } return out; }
for (const file of walk('src')) {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (n: ts.Node) => {
    if (ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isArrowFunction(n) || ts.isFunctionExpression(n) || ts.isConstructorDeclaration(n) || ts.isGetAccessor(n)) {
      const a = sf.getLineAndCharacterOfPosition(n.getStart()).line, b = sf.getLineAndCharacterOfPosition(n.getEnd()).line;
      if (b - a + 1 > 60) { const name = (n as any).name?.getText?.() ?? (ts.isVariableDeclaration(n.parent) ? n.parent.name.getText() : '(anon)'); console.log(`${b - a + 1}\t${file}:${a + 1}\t${name}`); }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
}
