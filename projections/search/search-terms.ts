/**
 * The words of a web-search query that a match must contain (phrases' words included), without the excluded ones
 * (`-word`, `-"a phrase"`) and the `or` operator: what highlights mark. Empty when the query only excludes.
 */
export function positiveTerms(q: string): string {
  const out: string[] = [];
  for (const m of q.matchAll(/(^|\s)(-?)"([^"]*)"?|(\S+)/g)) {
    if (m[3] !== undefined) {
      if (m[2] !== '-') out.push(m[3]);
      continue;
    }
    const word = m[4]!;
    if (word.startsWith('-') || word.toLowerCase() === 'or') continue;
    out.push(word);
  }
  return out.join(' ').trim();
}
