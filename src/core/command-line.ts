/**
 * `CMD ARGS` → argv, the way a POSIX shell splits words: whitespace
 * separates, single quotes keep everything, double quotes keep everything but
 * `\"` and `\\`, a backslash outside quotes escapes the next character. No
 * variables, globs or operators: the result is exec'd, never given to a shell.
 */
export function splitCommandLine(text: string): string[] | { error: string } {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) return { error: 'unterminated single quote' };
      word += text.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j++) {
        if (text[j] === '\\' && (text[j + 1] === '"' || text[j + 1] === '\\')) j++;
        word += text[j];
      }
      if (j >= text.length) return { error: 'unterminated double quote' };
      inWord = true;
      i = j;
    } else if (c === '\\' && i + 1 < text.length) {
      word += text[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words.length ? words : { error: 'empty command' };
}
