/** JSON value types shared by the pure core. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses JSON without throwing; `undefined` when the text is not JSON. */
export function tryParseJson(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    // A UTF-8 BOM is legal on the wire but not in JSON.parse.
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    return undefined;
  }
}

/** Cuts a string to `max` characters, marking the cut. */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`;
}

/**
 * Whether JSON text nests objects/arrays deeper than `max`, found by one scan
 * of the characters (no parse: this guards the parser itself).
 */
export function exceedsJsonDepth(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/**
 * Whether a parsed JSON value nests deeper than `maxDepth` (objects/arrays,
 * counted as exceedsJsonDepth counts them) or holds more than `maxValues`
 * values (every object, array, key's value and item counts one). Iterative,
 * so it is safe on values far deeper than the stack; stops at the first bound crossed.
 */
export function jsonBoundExceeded(value: unknown, maxDepth: number, maxValues = Infinity): 'depth' | 'size' | undefined {
  const stack: [unknown, number][] = [[value, 0]];
  let values = 0;
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (++values > maxValues) return 'size';
    if (typeof current !== 'object' || current === null) continue;
    if (depth + 1 > maxDepth) return 'depth';
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) stack.push([child, depth + 1]);
  }
  return undefined;
}
