/**
 * Configuration keys by path, and where each came from (a flag, an environment variable, the config file): set and
 * merged here, so a complaint about a value can name its source.
 */
import type { ErrorObject } from 'ajv';
import { isPlainObject } from '../core/json.js';
import { complaintsOf } from './error-words.js';
import type { KeyTree } from './key-tree.js';

/** Where a key's value came from, in words (`flag --port`, `environment variable OXP_URL`, `config file x.yaml`). */
export type Source = string;

/** The validator's complaints in words (error-words.ts): one alone on one line, several listed under it. */
export function describeErrors(errors: ErrorObject[], sources: Map<string, Source>, keys?: KeyTree): string {
  const lines = complaintsOf(errors, keys).map(({ path, problem }) => `${path.join('.') || '(root)'} (from ${sourceOf(path, sources)}): ${problem}`);
  if (lines.length === 1) return `invalid configuration: ${lines[0]!}`;
  return `invalid configuration:\n${lines.map((l) => `  ${l}`).join('\n')}\nRun with --help for the options; config/config.schema.json documents every key.`;
}

/** Where a key came from: its own source, else the nearest parent's (a flag that set a whole list). */
export function sourceOf(path: string[], sources: Map<string, Source>): Source {
  for (let n = path.length; n > 0; n--) {
    const source = sources.get(path.slice(0, n).join('.'));
    if (source) return source;
  }
  return 'configuration';
}

export function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node = target;
  for (const part of path.slice(0, -1)) {
    if (!isPlainObject(node[part])) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
}

export function deepAssign(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(source)) {
    if (isPlainObject(value) && isPlainObject(target[key])) deepAssign(target[key], value);
    else target[key] = isPlainObject(value) ? { ...value } : value;
  }
}

export function markSources(value: Record<string, unknown>, prefix: string[], source: Source, sources: Map<string, Source>): void {
  for (const [key, child] of Object.entries(value)) {
    const path = [...prefix, key];
    sources.set(path.join('.'), source);
    if (isPlainObject(child)) markSources(child, path, source, sources);
  }
}
