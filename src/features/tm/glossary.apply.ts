/** A glossary term as the translation pipeline uses it. */
export interface PlanTerm {
  term: string;
  translation: string;
  caseSensitive: boolean;
}

/** The text with each glossary term found replaced by a placeholder, and what the placeholders stand for. */
export interface GlossaryPlan {
  /** Parts of the text between terms (raw), one more than `translations`. */
  gaps: string[];
  /** The translation of each placeholder, in order. */
  translations: string[];
  /** Terms cover every letter and digit of the text: no provider is needed. */
  covered: boolean;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const WORDY = /[\p{L}\p{N}]/u;

/** A term as a pattern: whitespace runs match any whitespace run, and it stands alone (no letter or digit around). */
const patternOf = (t: PlanTerm) =>
  new RegExp(
    `(?<![\\p{L}\\p{N}])${t.term.normalize('NFC').trim().split(/\s+/u).map(escapeRegExp).join('\\s+')}(?![\\p{L}\\p{N}])`,
    t.caseSensitive ? 'gu' : 'giu',
  );

/** Finds the terms in the text, the longest first, never overlapping. */
export function planGlossary(input: string, terms: readonly PlanTerm[]): GlossaryPlan {
  const text = input.normalize('NFC');
  const found: { start: number; end: number; translation: string }[] = [];
  const sorted = [...terms].sort((a, b) => b.term.length - a.term.length);
  for (const t of sorted) {
    if (!t.term.trim()) continue;
    for (const m of text.matchAll(patternOf(t))) {
      const start = m.index;
      const end = start + m[0].length;
      if (found.some((f) => start < f.end && end > f.start)) continue;
      found.push({ start, end, translation: t.translation });
    }
  }
  found.sort((a, b) => a.start - b.start);
  const gaps: string[] = [];
  let at = 0;
  for (const f of found) {
    gaps.push(text.slice(at, f.start));
    at = f.end;
  }
  gaps.push(text.slice(at));
  const translations = found.map((f) => f.translation);
  return { gaps, translations, covered: found.length > 0 && !gaps.some((g) => WORDY.test(g)) };
}

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const ENTITIES = new Map([
  ['amp', '&'],
  ['lt', '<'],
  ['gt', '>'],
  ['quot', '"'],
  ['apos', "'"],
]);
const unescapeXml = (s: string) =>
  s.replace(/&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/g, (_, name: string) =>
    name.startsWith('#x')
      ? String.fromCodePoint(parseInt(name.slice(2), 16))
      : name.startsWith('#')
        ? String.fromCodePoint(parseInt(name.slice(1), 10))
        : (ENTITIES.get(name) ?? ''),
  );

/** The text a provider gets: the gaps escaped as XML, each term a `<x id="n"/>` placeholder. */
export const markupOf = (plan: GlossaryPlan): string =>
  plan.gaps.map((g, i) => (i === 0 ? escapeXml(g) : `<x id="${i - 1}"/>${escapeXml(g)}`)).join('');

/** The text with the terms' translations in place of the placeholders (without a provider). */
export const filledText = (plan: GlossaryPlan): string =>
  plan.gaps.map((g, i) => (i === 0 ? g : `${plan.translations[i - 1]}${g}`)).join('');

const PLACEHOLDER = /<x\s+id="(\d+)"\s*(?:\/>|>\s*<\/x>)/g;

/** A provider's answer with the placeholders replaced by the terms' translations and the XML unescaped. */
export function restorePlaceholders(answer: string, translations: readonly string[]): string {
  let out = '';
  let at = 0;
  for (const m of answer.matchAll(PLACEHOLDER)) {
    out += unescapeXml(answer.slice(at, m.index));
    out += translations[Number(m[1])] ?? '';
    at = m.index + m[0].length;
  }
  return out + unescapeXml(answer.slice(at));
}
