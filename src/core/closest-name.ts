/**
 * "Did you mean …?": the known name a mistyped one was most likely meant to be. Edit distance counts an insertion,
 * deletion, substitution or swap of two neighbours as one edit (optimal string alignment); a name within a third of
 * its length (at least one edit) is a likely typo, and so is the start of exactly one known name (`--oauth-res`).
 *
 * Also asked of what a caller sends (a tool name, against every tool it may see): the work is bounded by the word's
 * length (MAX_WORD) and each candidate is dropped as soon as it cannot be within the limit.
 */

/** Longer words get no guess: an MCP tool name is at most 128 characters, and the work grows with the length. */
const MAX_WORD = 128;

/** Edits between `a` and `b` (optimal string alignment distance); past `max`, some number above `max`. */
export function editDistance(a: string, b: string, max = Infinity): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array<number>(rows * cols).fill(0);
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    let rowBest = d[i * cols]!;
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[(i - 1) * cols + j]! + 1, d[i * cols + j - 1]! + 1, d[(i - 1) * cols + j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[(i - 2) * cols + j - 2]! + 1);
      d[i * cols + j] = best;
      rowBest = Math.min(rowBest, best);
    }
    // Every later row is at least this row's best less one (a swap reaches back two rows): past max + 1, done.
    if (rowBest > max + 1) return max + 1;
  }
  return d[rows * cols - 1]!;
}

/** The candidate `word` most likely stands for, or undefined when none is close (ties: the first candidate). */
export function closestName(word: string, candidates: readonly string[]): string | undefined {
  if (word.length > MAX_WORD) return undefined;
  const lower = word.toLowerCase();
  const limit = Math.max(1, Math.floor(lower.length / 3));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate.toLowerCase(), Math.min(bestDistance, limit));
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  if (best !== undefined && bestDistance <= limit) return best;
  const extending = candidates.filter((c) => lower.length >= 3 && c.toLowerCase().startsWith(lower));
  return extending.length === 1 ? extending[0] : undefined;
}
