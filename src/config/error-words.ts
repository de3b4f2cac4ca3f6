/**
 * The schema validator's complaints in words for the person who set the value: a pattern said as what it allows
 * (`must be an http:// or https:// URL`, not `must match ^https?://[^\s]+$`), a short secret with how to make one,
 * and of a value that may take several forms (a token: a string, or `{name, value}`), only the complaints of the form
 * the value was meant to be (a string is no object: "must be object" is noise).
 */
import type { ErrorObject } from 'ajv';
import { closestName } from '../core/closest-name.js';
import { knownKeysAt, type KeyTree } from './key-tree.js';

/** One complaint: the key's path and what is wrong with its value. */
export interface Complaint {
  path: string[];
  problem: string;
}

/** Patterns of the schema by what they allow; the others are read by charClassWords. */
const PATTERN_WORDS: Record<string, string> = {
  '^https?://[^\\s]+$': 'must be an http:// or https:// URL, e.g. http://127.0.0.1:8000',
  '^https?://[^\\s/?#]+$': 'must be an origin, http(s)://host[:port], without a path',
  '^https?://': 'must start with http:// or https://',
  '^\\d+\\.\\d+\\.\\d+$': 'must be a version x.y.z, e.g. 1.0.0',
  '^(rediss?://[^\\s]+|/[^\\s]+)$': 'must be a redis:// or rediss:// URL, or the absolute path of a Unix socket',
  '^[A-Za-z][A-Za-z0-9+.-]*:[^\\s#]+$': 'must be an absolute URI, e.g. https://tools.example.com',
  '^[!#-\\[\\]-~]+( [!#-\\[\\]-~]+)*$': 'must be scopes separated by single spaces (no quotes or backslashes)',
};

/** `^[A-Za-z0-9_-]{1,32}$` → "may only use letters, digits, _ and - (at most 32)". */
function charClassWords(pattern: string): string | undefined {
  const m = /^\^\[([^\]]+)\](?:\{1,(\d+)\}|\+)\$$/.exec(pattern);
  if (!m) return undefined;
  let rest = m[1]!;
  const kinds: string[] = [];
  for (const [range, word] of [
    ['A-Za-z', 'letters'],
    ['0-9', 'digits'],
  ] as const) {
    if (rest.includes(range)) {
      kinds.push(word);
      rest = rest.replace(range, '');
    }
  }
  if (kinds.length === 0) return undefined;
  const marks = [...rest.replace(/\\/g, '')];
  const all = [...kinds, ...marks];
  const list = all.length > 1 ? `${all.slice(0, -1).join(', ')} and ${all[all.length - 1]!}` : all[0]!;
  return `may only use ${list}${m[2] ? ` (at most ${m[2]})` : ''}`;
}

/** A key that holds a secret: a short one is refused with how to make one (its value is never repeated). */
const SECRET_KEY = /token|secret|apikey|password/i;

/**
 * An unknown key: the known key it most likely stands for, as a mistyped flag gets (`loglevel` → `logLevel`), else the
 * keys allowed there.
 */
function unknownKeyWords(path: string[], keys: KeyTree | undefined): string {
  const known = keys ? knownKeysAt(keys, path.slice(0, -1)) : [];
  const guess = closestName(path[path.length - 1]!, known);
  if (guess) return `is not a known key (did you mean ${guess}?)`;
  return known.length > 0 ? `is not a known key; known here: ${known.join(', ')}` : 'is not a known key';
}

/** One complaint of the validator in words. */
function wordsFor(e: ErrorObject, path: string[], keys: KeyTree | undefined): string {
  switch (e.keyword) {
    case 'enum':
      return `must be one of: ${(e.params.allowedValues as unknown[]).join(', ')}`;
    case 'additionalProperties':
      return unknownKeyWords(path, keys);
    case 'pattern': {
      const pattern = String(e.params.pattern);
      return PATTERN_WORDS[pattern] ?? charClassWords(pattern) ?? `must match ${pattern}`;
    }
    case 'minLength': {
      const limit = Number(e.params.limit);
      if (limit > 1 && path.some((p) => SECRET_KEY.test(p)))
        return `is too short for a secret: at least ${limit} characters (\`openssl rand -hex 32\` makes one)`;
      return limit === 1 ? 'must not be empty' : `is too short: at least ${limit} characters`;
    }
    case 'maxLength':
      return `is too long: at most ${String(e.params.limit)} characters`;
    case 'required':
      return `needs ${String(e.params.missingProperty)}`;
    case 'oneOf':
      // Left only when the value takes several of its forms at once (with none, the forms' own complaints say why).
      return 'takes more than one of its forms at once: keep the keys of one';
    default:
      return e.message ?? 'is invalid';
  }
}

/** The pieces of a `oneOf` failure: the error itself and its forms' complaints, by form. */
interface Alternatives {
  at: string;
  branches: Map<string, ErrorObject[]>;
}

/** For each `oneOf` (or `anyOf`) error, its forms' complaints: those before it, under its schema path and instance path. */
function alternativesOf(errors: ErrorObject[]): Map<ErrorObject, Alternatives> {
  const found = new Map<ErrorObject, Alternatives>();
  errors.forEach((e, k) => {
    if (e.keyword !== 'oneOf' && e.keyword !== 'anyOf') return;
    const branches = new Map<string, ErrorObject[]>();
    for (const b of errors.slice(0, k)) {
      const under = b.instancePath === e.instancePath || b.instancePath.startsWith(`${e.instancePath}/`);
      if (!under || !b.schemaPath.startsWith(`${e.schemaPath}/`)) continue;
      const branch = b.schemaPath.slice(e.schemaPath.length + 1).split('/')[0]!;
      branches.set(branch, [...(branches.get(branch) ?? []), b]);
    }
    found.set(e, { at: e.instancePath, branches });
  });
  return found;
}

/** A form the value was not meant to be: of another type, or without the key that form requires. */
function notMeant(errors: ErrorObject[], at: string): boolean {
  return errors.some((b) => b.instancePath === at && (b.keyword === 'type' || b.keyword === 'required'));
}

/**
 * The complaints worth saying: of a value with several possible forms, those of the forms it was meant to be (when
 * it is none of them, one line naming what each form needs), each once. `keys`: the schema's keys (key-tree.ts), for
 * what an unknown key was likely meant to be.
 */
export function complaintsOf(errors: ErrorObject[], keys?: KeyTree): Complaint[] {
  const dropped = new Set<ErrorObject>(errors.filter((e) => e.keyword === 'if'));
  const added: ErrorObject[] = [];
  for (const [error, { at, branches }] of alternativesOf(errors)) {
    if (branches.size === 0) continue;
    dropped.add(error);
    const meant = [...branches.values()].filter((b) => !notMeant(b, at));
    for (const b of branches.values()) if (!meant.includes(b)) b.forEach((x) => dropped.add(x));
    if (meant.length > 0) continue;
    // None of its forms: say what each needs ("must be string or object", "needs env or file").
    const wants = [...branches.values()].flatMap((b) =>
      b.filter((x) => x.instancePath === at).map((x) => (x.keyword === 'type' ? String(x.params.type) : String(x.params.missingProperty))),
    );
    const types = [...branches.values()].every((b) => b.some((x) => x.instancePath === at && x.keyword === 'type'));
    added.push({ ...error, keyword: 'oneOfWords', message: `${types ? 'must be' : 'needs'} ${[...new Set(wants)].join(' or ')}` });
  }
  const seen = new Set<string>();
  const out: Complaint[] = [];
  for (const e of [...errors.filter((x) => !dropped.has(x)), ...added]) {
    const path = e.instancePath.split('/').filter(Boolean);
    if (e.keyword === 'additionalProperties') path.push(String(e.params.additionalProperty));
    const problem = e.keyword === 'oneOfWords' ? e.message! : wordsFor(e, path, keys);
    const key = `${path.join('.')}\n${problem}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ path, problem });
  }
  return out;
}
