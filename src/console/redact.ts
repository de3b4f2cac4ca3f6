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
