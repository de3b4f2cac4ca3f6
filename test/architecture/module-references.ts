/**
 * Every way a TypeScript module names another, read with the TypeScript
 * compiler's own parser (no regexes: a regex saw only `import … from` and let
 * an `export … from`, a bare `import 'x'` or an `import('x')` slip past the
 * architecture checks). Used by layering.test.ts and import-cycles.test.ts.
 *
 * Found: static `import … from` and `export … from` (also `export *`), a
 * side-effect `import 'x'`, `import x = require('x')`, a dynamic `import('x')`,
 * a call of a function made by `createRequire` (`const r = createRequire(…);
 * r('x')`, or `createRequire(…)('x')`), and type positions `typeof
 * import('x')`. A module named by anything but a string literal (or a
 * conditional between literals) is returned as `unresolved`, so a check can
 * refuse what it cannot see.
 *
 * `typeOnly` is true where nothing is loaded at run time: `import type`,
 * `export type`, braces whose every name is marked `type`, and `typeof
 * import('x')`. An import whose names are merely used as types is NOT
 * type-only here (tsc and esbuild would drop it, but the house style marks
 * type imports, and counting it as run time errs on the strict side).
 */
import ts from 'typescript';

export type ReferenceKind = 'import' | 'export' | 'side-effect' | 'import-equals' | 'dynamic' | 'require' | 'type-query';

export interface ModuleReference {
  spec: string;
  kind: ReferenceKind;
  typeOnly: boolean;
  /** 1-based. */
  line: number;
}

export interface UnresolvedReference {
  kind: 'dynamic' | 'require';
  line: number;
  text: string;
}

export interface ModuleReferences {
  references: ModuleReference[];
  unresolved: UnresolvedReference[];
}

/** The module names an expression can evaluate to, when they are all literals; undefined otherwise. */
function literalSpecs(node: ts.Expression): string[] | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [node.text];
  if (ts.isParenthesizedExpression(node)) return literalSpecs(node.expression);
  if (ts.isConditionalExpression(node)) {
    const [a, b] = [literalSpecs(node.whenTrue), literalSpecs(node.whenFalse)];
    return a && b ? [...a, ...b] : undefined;
  }
  return undefined;
}

const isNodeModule = (spec: string) => spec === 'node:module' || spec === 'module';

/** Names bound to node:module's createRequire in this file (`createRequire`, an alias, or `ns.createRequire`). */
function createRequireCallee(source: ts.SourceFile): (callee: ts.Expression) => boolean {
  const direct = new Set<string>();
  const namespaces = new Set<string>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier) || !isNodeModule(statement.moduleSpecifier.text)) continue;
    const bindings = statement.importClause?.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings)) namespaces.add(bindings.name.text);
    if (statement.importClause?.name) namespaces.add(statement.importClause.name.text); // default import of node:module
    if (bindings && ts.isNamedImports(bindings)) {
      for (const element of bindings.elements) if ((element.propertyName ?? element.name).text === 'createRequire') direct.add(element.name.text);
    }
  }
  return (callee) =>
    (ts.isIdentifier(callee) && direct.has(callee.text)) ||
    (ts.isPropertyAccessExpression(callee) &&
      callee.name.text === 'createRequire' &&
      ts.isIdentifier(callee.expression) &&
      namespaces.has(callee.expression.text));
}

/** Whether every name in braces is marked `type` (and there is at least one). */
const allMarkedType = (elements: ts.NodeArray<ts.ImportSpecifier | ts.ExportSpecifier>) => elements.length > 0 && elements.every((e) => e.isTypeOnly);

export function moduleReferences(fileName: string, text: string): ModuleReferences {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const references: ModuleReference[] = [];
  const unresolved: UnresolvedReference[] = [];
  const lineOf = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const add = (node: ts.Node, spec: string, kind: ReferenceKind, typeOnly: boolean) => references.push({ spec, kind, typeOnly, line: lineOf(node) });
  const isCreateRequire = createRequireCallee(source);
  // Variables holding a require function: `const r = createRequire(import.meta.url)`.
  const requireNames = new Set<string>();
  const visitDeclarations = (node: ts.Node): void => {
    if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.initializer &&
      ts.isCallExpression(node.initializer) &&
      isCreateRequire(node.initializer.expression)
    ) {
      requireNames.add(node.name.text);
    }
    ts.forEachChild(node, visitDeclarations);
  };
  visitDeclarations(source);
  const isRequire = (callee: ts.Expression) =>
    (ts.isIdentifier(callee) && requireNames.has(callee.text)) || (ts.isCallExpression(callee) && isCreateRequire(callee.expression));

  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const bindings = clause?.namedBindings;
      const typeOnly = Boolean(
        clause &&
        (clause.phaseModifier === ts.SyntaxKind.TypeKeyword || (!clause.name && bindings && ts.isNamedImports(bindings) && allMarkedType(bindings.elements))),
      );
      add(node, node.moduleSpecifier.text, clause ? 'import' : 'side-effect', typeOnly);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const typeOnly = node.isTypeOnly || Boolean(node.exportClause && ts.isNamedExports(node.exportClause) && allMarkedType(node.exportClause.elements));
      add(node, node.moduleSpecifier.text, 'export', typeOnly);
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      add(node, node.moduleReference.expression.text, 'import-equals', node.isTypeOnly);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      add(node, node.argument.literal.text, 'type-query', true);
    } else if (ts.isCallExpression(node)) {
      const kind = node.expression.kind === ts.SyntaxKind.ImportKeyword ? 'dynamic' : isRequire(node.expression) ? 'require' : undefined;
      if (kind) {
        const specs = node.arguments[0] ? literalSpecs(node.arguments[0]) : undefined;
        if (specs) for (const spec of specs) add(node, spec, kind, false);
        else unresolved.push({ kind, line: lineOf(node), text: node.getText(source) });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { references, unresolved };
}
