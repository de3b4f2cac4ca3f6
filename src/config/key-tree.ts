/**
 * The configuration's keys as a tree, for "did you mean …?" on a mistyped key at any depth: the validator's error names
 * the unknown key and where it stands, not the keys allowed there (its schema path is relative to a `$defs` entry when
 * the object is one). The tree is made from CONFIG_SCHEMA when the validator is generated (scripts/generate-validators.ts
 * writes it beside the validator), so start-up reads no schema.
 */

/** An object's known keys, each with the tree below it; `any`: what stands under a key that is a name (a map, a list). */
export interface KeyTree {
  keys?: Record<string, KeyTree>;
  any?: KeyTree;
}

type Schema = Record<string, unknown>;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Two trees as one: a value that may take several forms (`oneOf`, `if`/`then`) knows the keys of each. */
function mergeTrees(a: KeyTree, b: KeyTree): KeyTree {
  const keys: Record<string, KeyTree> = { ...a.keys };
  for (const [name, tree] of Object.entries(b.keys ?? {})) keys[name] = keys[name] ? mergeTrees(keys[name], tree) : tree;
  const any = a.any && b.any ? mergeTrees(a.any, b.any) : (a.any ?? b.any);
  return { ...(Object.keys(keys).length > 0 ? { keys } : {}), ...(any ? { any } : {}) };
}

/** The keys `schema` allows, resolving `$ref`s to `#/$defs/NAME` of `root` (each once on a path: no schema here recurses). */
export function keyTreeOf(schema: unknown, root: unknown = schema, seen: ReadonlySet<string> = new Set()): KeyTree {
  if (!isSchema(schema)) return {};
  let tree: KeyTree = {};
  const ref = typeof schema.$ref === 'string' ? /^#\/\$defs\/(.+)$/.exec(schema.$ref)?.[1] : undefined;
  if (ref !== undefined && !seen.has(ref) && isSchema(root) && isSchema(root.$defs)) {
    tree = mergeTrees(tree, keyTreeOf(root.$defs[ref], root, new Set([...seen, ref])));
  }
  if (isSchema(schema.properties)) {
    const keys: Record<string, KeyTree> = {};
    for (const [name, child] of Object.entries(schema.properties)) keys[name] = keyTreeOf(child, root, seen);
    tree = mergeTrees(tree, { keys });
  }
  for (const under of [schema.additionalProperties, schema.items, ...Object.values(isSchema(schema.patternProperties) ? schema.patternProperties : {})]) {
    if (isSchema(under)) tree = mergeTrees(tree, { any: keyTreeOf(under, root, seen) });
  }
  for (const forms of [schema.oneOf, schema.anyOf, schema.allOf]) {
    if (Array.isArray(forms)) for (const form of forms) tree = mergeTrees(tree, keyTreeOf(form, root, seen));
  }
  for (const part of [schema.then, schema.else]) tree = mergeTrees(tree, keyTreeOf(part, root, seen));
  return tree;
}

/** The keys known in the object at `path` (object keys and list indices, as the validator's instance path has them). */
export function knownKeysAt(tree: KeyTree, path: readonly string[]): string[] {
  let node: KeyTree | undefined = tree;
  for (const part of path) {
    node = node.keys && Object.hasOwn(node.keys, part) ? node.keys[part] : node.any;
    if (!node) return [];
  }
  return Object.keys(node.keys ?? {});
}
