/**
 * Glob patterns over names (`*` matches any run of characters, including
 * none; every other character matches itself, case-sensitively).
 *
 * Patterns come from trusted configuration, but the names they are matched
 * against come from clients and upstream catalogs, so the matcher must stay
 * linear in practice whatever the pattern: a regular expression built from a
 * glob (`^a.*a.*a.*b$`) backtracks polynomially on near misses. This is the
 * classic wildcard walk that remembers only the last `*`: at most
 * pattern × name steps, no recursion, no allocation.
 */
export function globMatch(pattern: string, name: string): boolean {
  let p = 0;
  let n = 0;
  let star = -1;
  let resume = 0;
  while (n < name.length) {
    if (p < pattern.length && pattern.charCodeAt(p) !== 42 /* * */ && pattern.charCodeAt(p) === name.charCodeAt(n)) {
      p++;
      n++;
    } else if (p < pattern.length && pattern.charCodeAt(p) === 42) {
      star = p++;
      resume = n;
    } else if (star >= 0) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern.charCodeAt(p) === 42) p++;
  return p === pattern.length;
}

/** A predicate true when any pattern matches the name (false for no patterns). */
export function anyGlob(patterns: readonly string[]): (name: string) => boolean {
  if (patterns.length === 0) return () => false;
  if (patterns.includes('*')) return () => true;
  const exact = new Set(patterns.filter((p) => !p.includes('*')));
  const wild = patterns.filter((p) => p.includes('*'));
  return (name) => exact.has(name) || wild.some((p) => globMatch(p, name));
}
