/**
 * What the console may show of a call's arguments and result.
 *
 * By default only shapes: the top-level keys and the JSON type of each value,
 * never a value. With `console.showArguments` the values too, but a key that
 * looks like a credential (secret, token, password, authorization, api key,
 * cookie, private key) has its value replaced, `developer_message` is always
 * dropped, and the text is cut at a bound. Pure functions.
 */
import { isPlainObject } from '../core/json.js';
import type { Principal } from '../core/principal.js';

const SECRET_KEY = /secret|token|passw(or)?d|authori[sz]ation|api[-_]?key|credential|cookie|private[-_]?key|developer_?message/i;
const DEVELOPER_MESSAGE = /^developer_?message$/i;
export const REDACTED = '[redacted]';
/** Keys listed in a shape; more are counted, not named. */
const MAX_SHAPE_KEYS = 32;
const MAX_DEPTH = 8;

export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** `{key: type}` of an object's top-level members (credential-like keys as `[redacted]`), or the value's type. */
export function shapeOf(value: unknown): Record<string, string> | string {
  if (!isPlainObject(value)) return typeName(value);
  const shape: Record<string, string> = {};
  let n = 0;
  for (const key in value) {
    if (DEVELOPER_MESSAGE.test(key)) continue;
    if (n++ === MAX_SHAPE_KEYS) {
      shape['…'] = `${Object.keys(value).length - MAX_SHAPE_KEYS} more`;
      break;
    }
    shape[key] = SECRET_KEY.test(key) ? REDACTED : typeName(value[key]);
  }
  return shape;
}

/**
 * shapeOf() for a stream of values that mostly share one shape (a tool's
 * arguments, its results): the last shape made is handed out again while the
 * values have the same keys, in the same order, with the same types, so the
 * console's record costs no allocation per call. Only shapes are kept, as
 * before: no value outlives its call. (Keeping the values themselves and
 * redacting when the console is read was the other way; it would keep up to
 * `recentCalls` arguments and results alive, each up to the request or
 * response size limits, secrets included, until they leave the ring.)
 */
export class ShapeMemo {
  private keys: string[] = [];
  /** The type each key had; undefined where the shape does not show it (credential-like keys, developer_message). */
  private types: (string | undefined)[] = [];
  private shape: Readonly<Record<string, string>> | undefined;

  shapeOf(value: unknown): Readonly<Record<string, string>> | string {
    if (!isPlainObject(value)) return typeName(value);
    if (this.shape !== undefined && this.fits(value)) return this.shape;
    const shape = Object.freeze(shapeOf(value) as Record<string, string>);
    const keys: string[] = [];
    const types: (string | undefined)[] = [];
    for (const key in value) {
      keys.push(key);
      types.push(DEVELOPER_MESSAGE.test(key) || SECRET_KEY.test(key) ? undefined : typeName(value[key]));
    }
    // A shape cut at MAX_SHAPE_KEYS names how many keys it left out: not worth matching.
    const memo = keys.length <= MAX_SHAPE_KEYS;
    this.keys = memo ? keys : [];
    this.types = memo ? types : [];
    this.shape = memo ? shape : undefined;
    return shape;
  }

  private fits(value: Record<string, unknown>): boolean {
    const { keys, types } = this;
    let i = 0;
    for (const key in value) {
      if (i === keys.length || key !== keys[i]) return false;
      const type = types[i++];
      if (type !== undefined && typeName(value[key]) !== type) return false;
    }
    return i === keys.length;
  }
}

/** The value with credential-like members replaced and `developer_message` dropped, as JSON cut at `maxChars`. */
export function redactedJson(value: unknown, maxChars: number): string {
  const text = JSON.stringify(scrub(value, 0)) ?? 'undefined';
  return text.length > maxChars ? `${text.slice(0, maxChars)}… (${text.length} characters)` : text;
}

function scrub(value: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH) return typeName(value);
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (DEVELOPER_MESSAGE.test(key)) continue;
    out[key] = SECRET_KEY.test(key) ? REDACTED : scrub(v, depth + 1);
  }
  return out;
}

/** Longest principal name the console API returns: names come from outside (OAuth claims). */
export const MAX_PRINCIPAL_CHARS = 128;

/** C0/C1 controls, zero-width and bidirectional controls: they would hide or reorder what a name shows. */
const UNSHOWABLE = /[\p{Cc}\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/gu;

/**
 * A name that came from outside (an OAuth user claim) as the console shows it: cut at `maxChars` (its length said)
 * and with invisible or reordering characters replaced by U+FFFD. The page sets it as text, never as HTML.
 */
export function shownName(name: string | null, maxChars: number): string | null {
  if (name === null) return null;
  // Not through the middle of a surrogate pair.
  const end = maxChars - (/[\ud800-\udbff]/.test(name.charAt(maxChars - 1)) ? 1 : 0);
  const cut = name.length > maxChars ? `${name.slice(0, end)}… (${name.length} characters)` : name;
  return cut.replace(UNSHOWABLE, '\ufffd');
}

/** A principal as the console API shows it: its name, groups and scopes bounded and cleaned (an OAuth token's claims), never its claims. */
export function shownPrincipal(p: Principal) {
  const values = (list: readonly string[]) => list.slice(0, 64).map((v) => shownName(v, MAX_PRINCIPAL_CHARS)!);
  return { name: shownName(p.name, MAX_PRINCIPAL_CHARS)!, kind: p.kind, groups: values(p.groups), scopes: values(p.scopes) };
}
