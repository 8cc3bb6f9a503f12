import { SaxesParser } from 'saxes';
import { own } from '../../kernel/safe/keys.ts';
import type { EntryInput } from './tm.commands.ts';
import { TmxInvalid, TmxTooLarge, TmxTooManyEntries } from './tm.errors.ts';
import { canonicalLanguage, CONTROL_CHARS, MAX_TEXT } from '../../contracts/tm/tm.types.ts';

/** What a TMX document gives: the entries of its translation units, and how many pairs or units were refused. */
export interface TmxContent {
  entries: EntryInput[];
  skipped: number;
}

/** Inline elements whose content is native markup, not text of the segment (TMX 1.4b §3.7). */
const CODE_ELEMENTS: ReadonlySet<string> = new Set(['bpt', 'ept', 'it', 'ph', 'ut', 'sub']);
const ENCODINGS: ReadonlySet<string> = new Set(['utf-8', 'utf8', 'us-ascii']);

interface Unit {
  srcLang: string | null;
  /** Each variant's language (as written) and segment text, in document order. */
  variants: { lang: string; text: string }[];
}

/** The variant in the source language: that tag exactly, else (for a bare language such as en) one of its regions. */
function sourceVariant(unit: Unit, src: string) {
  const exact = unit.variants.find((v) => canonicalLanguage(v.lang) === src);
  if (exact || src.includes('-')) return exact;
  return unit.variants.find((v) => canonicalLanguage(v.lang)?.split('-')[0] === src);
}

/** The entries of one unit: its source segment to each other language, or why each pair is skipped. */
function entriesOf(unit: Unit, headerSrc: string | null): { entries: EntryInput[]; skipped: number } {
  const srcRaw = unit.srcLang ?? headerSrc;
  const declared = srcRaw && srcRaw !== '*all*' ? canonicalLanguage(srcRaw) : null;
  const source = declared ? sourceVariant(unit, declared) : undefined;
  const src = source ? canonicalLanguage(source.lang) : null;
  const targets = unit.variants.filter((v) => v !== source);
  if (!src || !source || !usable(source.text)) return { entries: [], skipped: Math.max(1, targets.length) };
  const entries: EntryInput[] = [];
  let skipped = 0;
  for (const v of targets) {
    const lang = canonicalLanguage(v.lang);
    if (!lang || lang === src || !usable(v.text)) skipped++;
    else
      entries.push({ sourceLang: src, targetLang: lang, source: source.text, target: v.text, entrySource: 'import' });
  }
  return { entries, skipped };
}

const usable = (text: string) => text.trim().length > 0 && text.length <= MAX_TEXT && !CONTROL_CHARS.test(text);

/**
 * Reads a TMX 1.4b document as it streams in (saxes; no DTD is read and no entity other than XML's own is known):
 * a DOCTYPE is refused outright, malformed or truncated XML is 400 TMX_INVALID with its line, more than `maxBytes`
 * bytes is 413 TMX_TOO_LARGE. Each `<tu>` gives one entry from its source language (`srclang` of the unit or of the
 * header) to each other language of its `<tuv xml:lang>` variants.
 */
/** The most entries one import records (each is an event). */
export const MAX_IMPORT_ENTRIES = 20_000;

export async function parseTmx(body: AsyncIterable<Buffer | string>, maxBytes: number): Promise<TmxContent> {
  const parser = new SaxesParser({ position: true });
  const fail = (reason: string, message: string) =>
    new TmxInvalid({ reason, message, line: parser.line, column: parser.column + 1 });
  const out: TmxContent = { entries: [], skipped: 0 };
  const path: string[] = [];
  let headerSrc: string | null = null;
  let unit: Unit | null = null;
  let lang: string | null = null;
  let seg: string | null = null;
  let codeDepth = 0;

  parser.on('error', (err) => {
    throw fail('malformed', err.message.replace(/^[^:]*:\d+:\d+: /, ''));
  });
  parser.on('doctype', () => {
    throw fail('doctype', 'a DOCTYPE (and any entity declaration) is refused');
  });
  parser.on('xmldecl', (d) => {
    if (d.encoding && !ENCODINGS.has(d.encoding.toLowerCase()))
      throw fail('encoding', `encoding ${d.encoding} is not supported: send UTF-8`);
  });
  parser.on('opentag', (tag) => {
    const attrs = tag.attributes as Record<string, string>;
    const parent = path.at(-1);
    path.push(tag.name);
    if (path.length === 1 && tag.name !== 'tmx') throw fail('not_tmx', `the root element is ${tag.name}, not tmx`);
    if (tag.name === 'header' && parent === 'tmx') headerSrc = own(attrs, 'srclang') ?? null;
    else if (tag.name === 'tu' && parent === 'body') unit = { srcLang: own(attrs, 'srclang') ?? null, variants: [] };
    else if (tag.name === 'tuv' && parent === 'tu') lang = own(attrs, 'xml:lang') ?? own(attrs, 'lang') ?? null;
    else if (tag.name === 'seg' && parent === 'tuv') seg = '';
    else if (seg !== null && CODE_ELEMENTS.has(tag.name)) codeDepth++;
  });
  const onText = (text: string) => {
    if (seg !== null && codeDepth === 0) seg += text;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', (tag) => {
    path.pop();
    if (seg !== null && CODE_ELEMENTS.has(tag.name)) codeDepth--;
    else if (tag.name === 'seg' && seg !== null) {
      if (unit && lang !== null) unit.variants.push({ lang, text: seg });
      seg = null;
    } else if (tag.name === 'tuv') lang = null;
    else if (tag.name === 'tu' && unit) {
      const r = entriesOf(unit, headerSrc);
      // One by one: a unit of many variants is one argument list too long for the stack otherwise.
      for (const e of r.entries) {
        if (out.entries.length >= MAX_IMPORT_ENTRIES) throw new TmxTooManyEntries({ maxEntries: MAX_IMPORT_ENTRIES });
        out.entries.push(e);
      }
      out.skipped += r.skipped;
      unit = null;
    }
  });

  const decoder = new TextDecoder('utf-8', { fatal: true });
  let size = 0;
  try {
    for await (const chunk of body) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += bytes.length;
      if (size > maxBytes) throw new TmxTooLarge({ maxBytes });
      parser.write(decoder.decode(bytes, { stream: true }));
    }
    parser.write(decoder.decode());
  } catch (err) {
    if (err instanceof TypeError) throw fail('encoding', 'the document is not valid UTF-8');
    throw err;
  }
  if (size === 0) throw new TmxInvalid({ reason: 'empty', message: 'the document is empty' });
  parser.close();
  return out;
}
