import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SaxesParser } from 'saxes';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';

let t: TestApp;
let admin: string;
let adminB: string;
let viewer: string;

const MAX = 200_000;

beforeAll(async () => {
  t = await createTestApp({ env: { SVC_TMX_MAX_BYTES: String(MAX) } });
  admin = await t.setup();
  await t.call({ method: 'POST', url: '/api/v1/sites', as: admin, payload: { id: 'other', name: 'Other' } });
  adminB = await createUser(t, 'admin-b@example.com', 'Correct-horse-42!', { other: 'admin' });
  viewer = await createUser(t, 'viewer@example.com', 'Correct-horse-42!', { main: 'viewer' });
});
afterAll(() => t.close());

const importTmx = (doc: string, opts: { as?: string; site?: string; type?: string } = {}) =>
  t.call({
    method: 'POST',
    url: '/api/v1/tm/import',
    as: opts.as ?? admin,
    site: opts.site ?? 'main',
    headers: { 'content-type': opts.type ?? 'application/x-tmx+xml' },
    payload: doc,
  });
const get = (url: string, opts: { as?: string; site?: string } = {}) =>
  t.call({ method: 'GET', url, as: opts.as ?? admin, site: opts.site ?? 'main' });
const error = (body: string) =>
  JSON.parse(body).errors[0] as { code: string; message: string; extensions: Record<string, unknown> };

const tmx = (units: string, header = 'srclang="en"') => `<?xml version="1.0" encoding="UTF-8"?>
<tmx version="1.4">
  <header creationtool="test" creationtoolversion="1" segtype="sentence" o-tmf="test" adminlang="en" ${header} datatype="plaintext"/>
  <body>
${units}
  </body>
</tmx>`;
const tu = (variants: Record<string, string>, attrs = '') =>
  `    <tu${attrs}>${Object.entries(variants)
    .map(([lang, seg]) => `<tuv xml:lang="${lang}"><seg>${seg}</seg></tuv>`)
    .join('')}</tu>`;

describe('POST /api/v1/tm/import', () => {
  it('makes one entry from the source language to each other language of a unit', async () => {
    const doc = tmx(
      [
        tu({ en: 'Open the file', de: 'Datei öffnen', fr: 'Ouvrir le fichier' }),
        tu({ 'EN-us': 'Close &amp; save', 'de-de': 'Schließen &amp; speichern' }),
        tu({ de: 'Nur Deutsch' }),
        tu({ fr: 'Bonjour', en: 'Hello' }, ' srclang="fr"'),
        tu({
          en: 'Keep <ph x="1">&lt;b&gt;</ph>bold<ph x="2">&lt;/b&gt;</ph> text',
          de: 'Fetten <hi>Text</hi> behalten',
        }),
      ].join('\n'),
    );
    const res = await importTmx(doc);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ data: { imported: 5, updated: 0, skipped: 1 } });
    const list = await get('/api/v1/tm?limit=200');
    const pairs = list
      .json()
      .data.map((e: { sourceLang: string; targetLang: string; source: string; target: string }) =>
        [e.sourceLang, e.targetLang, e.source, e.target].join('|'),
      );
    expect(pairs.sort()).toEqual(
      [
        'en|de|Open the file|Datei öffnen',
        'en|fr|Open the file|Ouvrir le fichier',
        'fr|en|Bonjour|Hello',
        'en|de|Keep bold text|Fetten Text behalten',
        'en-US|de-DE|Close & save|Schließen & speichern',
      ].sort(),
    );
    expect(list.json().data.every((e: { entrySource: string }) => e.entrySource === 'import')).toBe(true);
  });

  it('is idempotent: the same document again updates nothing, a changed target updates its entry', async () => {
    const doc = tmx(tu({ en: 'Idempotent import', de: 'Idempotenter Import' }));
    expect((await importTmx(doc)).json().data).toEqual({ imported: 1, updated: 0, skipped: 0 });
    expect((await importTmx(doc)).json().data).toEqual({ imported: 0, updated: 0, skipped: 1 });
    const changed = tmx(tu({ en: 'idempotent   IMPORT', de: 'Neu' }));
    expect((await importTmx(changed)).json().data).toEqual({ imported: 0, updated: 1, skipped: 0 });
  });

  it('imports many units in few appends and brings back deleted entries', async () => {
    const units = Array.from({ length: 700 }, (_, i) => tu({ en: `Bulk sentence ${i}`, it: `Frase ${i}` }));
    const res = await importTmx(tmx(units.join('\n')), { type: 'text/xml; charset=utf-8' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ imported: 700, updated: 0, skipped: 0 });
    const list = await get('/api/v1/tm?source=en&target=it&limit=1');
    expect(list.json().meta.total).toBe(700);
    const lookup = await t.call({
      method: 'POST',
      url: '/api/v1/tm/lookup',
      as: admin,
      site: 'main',
      payload: { query: 'Bulk sentence 3', sourceLang: 'en', targetLang: 'it' },
    });
    const first = lookup.json().data.match;
    expect(first).toMatchObject({ source: 'Bulk sentence 3', score: 100 });
    const del = await t.call({ method: 'DELETE', url: `/api/v1/tm/${first.id}`, as: admin, site: 'main' });
    expect(del.statusCode).toBe(204);
    const again = await importTmx(tmx(units.slice(0, 10).join('\n')));
    expect(again.json().data).toEqual({ imported: 1, updated: 0, skipped: 9 });
  });

  it.each([
    [
      'a DOCTYPE with an entity declaration',
      `<?xml version="1.0"?>\n<!DOCTYPE tmx [<!ENTITY x "boom">]>\n<tmx version="1.4"><body/></tmx>`,
      'doctype',
      2,
    ],
    ['a truncated document', tmx(tu({ en: 'Cut', de: 'Ab' })).slice(0, 200), 'malformed', undefined],
    ['an undefined entity', tmx(tu({ en: 'A &nbsp; B', de: 'x' })), 'malformed', 5],
    ['another root element', '<?xml version="1.0"?>\n<html><body/></html>', 'not_tmx', 2],
    ['an encoding other than UTF-8', '<?xml version="1.0" encoding="ISO-8859-1"?><tmx/>', 'encoding', 1],
    ['an empty body', ' ', 'malformed', undefined],
  ])('refuses %s with 400 TMX_INVALID and its line', async (_, doc, reason, line) => {
    const res = await importTmx(doc);
    expect(res.statusCode, res.body).toBe(400);
    const e = error(res.body);
    expect(e.code).toBe('TMX_INVALID');
    expect(e.extensions.reason).toBe(reason);
    if (line !== undefined) expect(e.extensions.line).toBe(line);
    expect(e.message).toMatch(/^TMX/);
  });

  it('refuses a document over the cap with 413 TMX_TOO_LARGE', async () => {
    const units = Array.from({ length: 3000 }, (_, i) => tu({ en: `Large ${i}`, de: `Groß ${i}` }));
    const res = await importTmx(tmx(units.join('\n')));
    expect(res.statusCode).toBe(413);
    expect(error(res.body).code).toBe('TMX_TOO_LARGE');
  });

  it('refuses other content types with 415 and a viewer with 403', async () => {
    const doc = tmx(tu({ en: 'x', de: 'y' }));
    expect((await importTmx(doc, { type: 'text/plain' })).statusCode).toBe(415);
    expect((await importTmx(doc, { as: viewer })).statusCode).toBe(403);
  });
});

/** Parses a TMX document back into its units' variants (a check of the export's XML). */
function unitsOf(doc: string): { attrs: Record<string, string>; segs: [string, string][] }[] {
  const parser = new SaxesParser();
  const units: { attrs: Record<string, string>; segs: [string, string][] }[] = [];
  let lang = '';
  let seg: string | null = null;
  parser.on('opentag', (tag) => {
    const attrs = tag.attributes as Record<string, string>;
    if (tag.name === 'tu') units.push({ attrs, segs: [] });
    if (tag.name === 'tuv') lang = attrs['xml:lang']!;
    if (tag.name === 'seg') seg = '';
  });
  parser.on('text', (x) => {
    if (seg !== null) seg += x;
  });
  parser.on('closetag', (tag) => {
    if (tag.name === 'seg') {
      units.at(-1)!.segs.push([lang, seg!]);
      seg = null;
    }
  });
  parser.write(doc).close();
  return units;
}

describe('GET /api/v1/tm/export', () => {
  it('streams a well-formed TMX 1.4b document, escaped, that imports back', async () => {
    const tricky = 'A <b>"quoted"</b> & \'odd\' ]]> text';
    await t.call({
      method: 'POST',
      url: '/api/v1/tm',
      as: admin,
      site: 'main',
      payload: { sourceLang: 'en', targetLang: 'ja', source: tricky, target: '「引用」& <b>' },
    });
    const res = await get('/api/v1/tm/export?source=en&target=ja');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/x-tmx\+xml/);
    expect(res.body).toContain('<tmx version="1.4">');
    expect(res.body).toContain('srclang="en"');
    const units = unitsOf(res.body);
    expect(units).toHaveLength(1);
    expect(units[0]!.segs).toEqual([
      ['en', tricky],
      ['ja', '「引用」& <b>'],
    ]);
    const again = await importTmx(res.body, { as: adminB, site: 'other' });
    expect(again.json().data).toEqual({ imported: 1, updated: 0, skipped: 0 });
    const onB = await get('/api/v1/tm', { as: adminB, site: 'other' });
    expect(onB.json().data[0]).toMatchObject({ source: tricky, target: '「引用」& <b>', entrySource: 'import' });
  });

  it('exports every entry of a pair across pages, and nothing of another site', async () => {
    const res = await get('/api/v1/tm/export?source=en&target=it');
    expect(unitsOf(res.body)).toHaveLength(700);
    const onB = await get('/api/v1/tm/export?source=en&target=it', { as: adminB, site: 'other' });
    expect(unitsOf(onB.body)).toHaveLength(0);
  });

  it('refuses an unknown language with 400', async () => {
    expect((await get('/api/v1/tm/export?source=__proto__')).statusCode).toBe(400);
  });
});
