/**
 * Configured values that travel as HTTP headers are checked when the configuration is loaded: a header is a
 * ByteString (Latin-1) without line breaks, and a value fetch cannot send (a `…` left in a placeholder, a pasted
 * token with a line break) would otherwise fail every call later, in words that name no key. The error names the key,
 * where it came from and the offending character, never the value (it is usually a credential).
 */
import { ConfigError } from './errors.js';
import type { BridgeConfig } from './types.js';

/** A header name: an RFC 9110 token. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** What a header value may not hold: beyond Latin-1, or a control character other than tab. */
const NOT_SENDABLE = /[^\t\x20-\x7E\x80-\xFF]/;

/** Why `value` cannot be sent as a header value, or undefined when it can. */
export function headerValueProblem(value: string): string | undefined {
  const index = value.search(NOT_SENDABLE);
  if (index === -1) return undefined;
  const code = value.codePointAt(index)!;
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  const shown = code > 0x20 && code !== 0x7f && !(code >= 0x80 && code < 0xa0) ? ` "${String.fromCodePoint(code)}"` : '';
  return `the character at index ${index} (${hex}${shown}) cannot be sent in an HTTP header, which takes Latin-1 text without line breaks`;
}

/** Throws a ConfigError naming every header name or value of the configuration that cannot be sent. */
export function checkHeaderValues(config: BridgeConfig, sourceOf: (path: string[]) => string): void {
  const problems: string[] = [];
  const check = (path: string[], value: unknown) => {
    const problem = typeof value === 'string' ? headerValueProblem(value) : undefined;
    if (problem) problems.push(`  ${path.join('.')} (from ${sourceOf(path)}): ${problem}`);
  };
  check(['upstream', 'apiKey'], config.upstream?.apiKey);
  check(['upstream', 'bearerToken'], config.upstream?.bearerToken);
  (config.oxpServer?.upstreams ?? []).forEach((upstream, i) => {
    for (const [name, value] of Object.entries(upstream.headers ?? {})) {
      const path = ['oxpServer', 'upstreams', String(i), 'headers', name];
      if (!TOKEN.test(name)) problems.push(`  ${path.join('.')} (from ${sourceOf(path)}): not a valid HTTP header name`);
      check(path, value);
    }
  });
  if (problems.length) throw new ConfigError(`invalid configuration:\n${problems.join('\n')}`);
}
