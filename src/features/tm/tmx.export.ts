import type { AppDeps } from '../../deps.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { entryPage, type EntryFilter } from '../../../projections/tm/index.ts';
import type { TmEntryRecord } from '../../contracts/tm/tm.types.ts';

/** Entries read per page while an export streams. */
const PAGE = 500;

/** Text or attribute value as XML 1.0 can carry it: markup escaped, characters XML forbids replaced. */
export const xmlText = (s: string): string =>
  s
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/gu, '\uFFFD')
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

/** TMX's date form: YYYYMMDDThhmmssZ. */
const tmxDate = (iso: string) => `${iso.slice(0, 19).replace(/[-:]/g, '')}Z`;

const unitOf = (e: TmEntryRecord) =>
  `    <tu tuid="${xmlText(e.id)}" srclang="${xmlText(e.sourceLang)}" creationdate="${tmxDate(e.createdAt)}" ` +
  `changedate="${tmxDate(e.updatedAt)}" creationid="${xmlText(e.createdBy)}">\n` +
  `      <prop type="x-quality">${e.quality}</prop>\n` +
  `      <prop type="x-entry-source">${e.entrySource}</prop>\n` +
  `      <tuv xml:lang="${xmlText(e.sourceLang)}"><seg>${xmlText(e.source)}</seg></tuv>\n` +
  `      <tuv xml:lang="${xmlText(e.targetLang)}"><seg>${xmlText(e.target)}</seg></tuv>\n` +
  `    </tu>\n`;

/**
 * The site's entries (of a language pair when given) as a TMX 1.4b document, produced page by page so memory stays
 * flat whatever the memory's size. One `<tu>` per entry, quality and origin as `x-` properties.
 */
export async function* exportTmx(
  deps: Pick<AppDeps, 'db'>,
  siteId: string,
  filter: EntryFilter,
): AsyncGenerator<string> {
  yield '<?xml version="1.0" encoding="UTF-8"?>\n<tmx version="1.4">\n';
  yield (
    `  <header creationtool="content-service" creationtoolversion="1" segtype="sentence" o-tmf="content-service" ` +
    `adminlang="en" srclang="${xmlText(filter.source ?? '*all*')}" datatype="plaintext"/>\n  <body>\n`
  );
  let after: string | null = null;
  for (;;) {
    const last: string | null = after;
    const page: TmEntryRecord[] = await readAsSite(deps.db, siteId, (db) => entryPage(db, siteId, filter, last, PAGE));
    if (page.length) yield page.map(unitOf).join('');
    if (page.length < PAGE) break;
    after = page.at(-1)!.id;
  }
  yield '  </body>\n</tmx>\n';
}
