// The `args` input split into words as a POSIX shell splits it, without running one.

/** `args` that no shell would split either (a quote left open). */
export class WordsError extends Error {}

/**
 * `args` split into words as a POSIX shell splits them, without running one: single quotes keep
 * everything, double quotes keep all but `\\`, `\"`, `\$` and `` \` `` escapes, a backslash outside
 * quotes keeps the next character (and drops a newline). No expansion of any kind: `$HOME` stays text.
 */
export function shellWords(text: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  let i = 0;
  const put = (c: string) => (word = (word ?? '') + c);
  while (i < text.length) {
    const c = text[i++];
    if (c === "'") {
      const end = text.indexOf("'", i);
      if (end < 0) throw new WordsError('a single quote is not closed');
      put(text.slice(i, end));
      i = end + 1;
    } else if (c === '"') {
      let closed = false;
      put('');
      while (i < text.length) {
        const d = text[i++];
        if (d === '"') {
          closed = true;
          break;
        }
        if (d === '\\' && i < text.length && '\\"$`\n'.includes(text[i])) {
          const e = text[i++];
          if (e !== '\n') put(e);
        } else put(d);
      }
      if (!closed) throw new WordsError('a double quote is not closed');
    } else if (c === '\\') {
      if (i < text.length) {
        const e = text[i++];
        if (e !== '\n') put(e);
      }
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else put(c);
  }
  if (word !== null) words.push(word);
  return words;
}
