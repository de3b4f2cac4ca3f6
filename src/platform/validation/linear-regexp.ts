/**
 * The regex engine ajv uses for `pattern` and `patternProperties` in upstream
 * schemas: RE2 (re2js), linear in the input, so a catastrophic pattern such
 * as `^(a+)+$` costs microseconds instead of freezing the process.
 *
 * JSON Schema patterns are ECMA-262 regexes; RE2 reads most of them the same
 * way. Two differences matter:
 * - `\uXXXX` (and, with ajv's `u` flag, `\u{X…}` and surrogate pairs) is not
 *   RE2 syntax: it is rewritten to RE2's `\x{X…}` before compiling;
 * - lookaround, backreferences, `\p{Script=…}`/long property names and a few
 *   other ECMAScript-only forms do not compile: the engine throws, ajv's
 *   compile fails, and the input validator leaves that tool's validation to
 *   the upstream (logged once). Nothing ever falls back to a backtracking engine.
 * Also `\s` is ASCII whitespace in RE2 (ECMAScript adds Unicode spaces).
 */
import { createRequire } from 'node:module';
import type { RE2JS } from 're2js';

// Required on the first pattern compiled (ajv compiles validators on a tool's first call), not at start-up.
const requireRe2 = createRequire(import.meta.url);
let re2: typeof RE2JS | undefined;
export const loadLinearRegExp = (): typeof RE2JS => (re2 ??= (requireRe2('re2js') as typeof import('re2js')).RE2JS);

interface RegExpLike {
  test(input: string): boolean;
}

/** What ajv's `code.regExp` option takes: a factory with a `code` property (used only by standalone code). */
export interface RegExpEngine {
  (pattern: string, flags: string): RegExpLike;
  code: string;
}

/**
 * ECMAScript `\u` escapes → RE2 `\x{…}`; everything else is copied as is.
 * Walks escapes pairwise, so `\\u0041` (an escaped backslash, then `u0041`) stays literal.
 */
export function toRe2Syntax(pattern: string): string {
  if (!pattern.includes('\\u')) return pattern;
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const next = pattern[i + 1];
    if (next !== 'u') {
      out += c + (next ?? '');
      i++;
      continue;
    }
    const braced = /^\{([0-9A-Fa-f]{1,6})\}/.exec(pattern.slice(i + 2, i + 10));
    if (braced) {
      out += `\\x{${braced[1]}}`;
      i += 1 + braced[0].length;
      continue;
    }
    const hex = /^[0-9A-Fa-f]{4}/.exec(pattern.slice(i + 2, i + 6))?.[0];
    if (!hex) {
      out += '\\u'; // not an escape RE2 knows: left for RE2 to refuse
      i++;
      continue;
    }
    let code = parseInt(hex, 16);
    i += 5;
    // A surrogate pair written as two escapes is one code point under the `u` flag.
    const low = /^\\u([dD][c-fC-F][0-9A-Fa-f]{2})/.exec(pattern.slice(i + 1, i + 7))?.[1];
    if (code >= 0xd800 && code <= 0xdbff && low) {
      code = 0x10000 + ((code - 0xd800) << 10) + (parseInt(low, 16) - 0xdc00);
      i += 6;
    }
    out += `\\x{${code.toString(16)}}`;
  }
  return out;
}

class Re2Pattern implements RegExpLike {
  private readonly re: RE2JS;
  constructor(private readonly source: string) {
    this.re = loadLinearRegExp().compile(toRe2Syntax(source));
  }
  test(input: string): boolean {
    return this.re.test(input);
  }
  /** ajv caches compiled patterns by this string: it must differ between patterns. */
  toString(): string {
    return `re2:/${this.source}/`;
  }
}

export const linearRegExp: RegExpEngine = Object.assign((pattern: string) => new Re2Pattern(pattern), { code: 'linearRegExp' });
