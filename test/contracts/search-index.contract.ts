import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SiteSchema } from '../../projections/schema/index.ts';
import type { SearchIndex, SearchRequest, SearchScope } from '../../projections/search/index.ts';

/**
 * An engine under test with the service around it: collections are defined and items written and deleted the way the
 * service does (through its API), and whatever keeps the engine in sync (a projector) runs as in production.
 */
export interface SearchSubject {
  index: SearchIndex;
  /** Two sites of the same instance. */
  sites: readonly [string, string];
  define(site: string, collection: string, fields: { field: string; type: string }[]): Promise<void>;
  put(site: string, collection: string, items: ({ id: string } & Record<string, unknown>)[]): Promise<void>;
  remove(site: string, collection: string, id: string): Promise<void>;
  schema(site: string): Promise<SiteSchema>;
  close(): Promise<void>;
}

const ALL = ['title', 'body'];

/** The behaviour every search engine must have (DESIGN §2, full-text search row); each engine's test file runs it. */
export function searchIndexContract(name: string, open: () => Promise<SearchSubject>): void {
  describe(`search index contract: ${name}`, () => {
    let s: SearchSubject;
    let a: string;
    let b: string;
    const ask = async (q: string, more: Partial<SearchRequest> & { scope?: Partial<SearchScope> } = {}, site = a) => {
      const { scope, ...rest } = more;
      return s.index.search({
        siteId: site,
        q,
        scopes: [{ collection: 'docs', fields: ALL, rows: null, ...scope }],
        limit: 20,
        offset: 0,
        schema: await s.schema(site),
        ...rest,
      });
    };
    const ids = async (q: string, more: Parameters<typeof ask>[1] = {}, site = a) =>
      (await ask(q, more, site)).hits.map((h) => h.id);

    beforeAll(async () => {
      s = await open();
      [a, b] = s.sites;
      const fields = [
        { field: 'title', type: 'string' },
        { field: 'body', type: 'text' },
      ];
      for (const site of s.sites) await s.define(site, 'docs', fields);
      await s.put(a, 'docs', [
        { id: 'hn', title: 'Đường phố Hà Nội', body: 'thủ đô' },
        { id: 'hoa', title: 'Hoà bình', status: 'published' },
        { id: 'thuy', title: 'Thuý Kiều', status: 'draft' },
        { id: 'nfd', title: 'Sông Hương'.normalize('NFD') },
        { id: 'ban-accent', title: 'bàn gỗ' },
        { id: 'ban-plain', title: 'ban go' },
        { id: 'in-title', title: 'kangaroo court', body: 'a story' },
        { id: 'in-body', title: 'a story', body: 'the kangaroo jumps' },
        { id: 'cats', title: 'cats and dogs', body: 'pets' },
        { id: 'cats-only', title: 'cats alone', body: 'pets' },
        { id: 'gone', title: 'vanishing wombat' },
        { id: 'html', title: 'sharp <b>teeth</b> & claws' },
      ]);
      await s.put(b, 'docs', [{ id: 'b1', title: 'platypus unique to site b' }]);
      await s.remove(a, 'docs', 'gone');
    });
    afterAll(() => s.close());

    it('finds Vietnamese text without its diacritics, and by either tone-mark placement', async () => {
      expect(await ids('duong pho ha noi')).toEqual(['hn']);
      expect(await ids('hòa')).toEqual(['hoa']);
      expect(await ids('hoà')).toEqual(['hoa']);
      expect(await ids('thúy')).toEqual(['thuy']);
      expect(await ids('THUÝ kieu')).toEqual(['thuy']);
    });

    it('finds text written decomposed (NFD) with a composed query', async () => {
      expect(await ids('sông hương')).toEqual(['nfd']);
      expect(await ids('song huong')).toEqual(['nfd']);
    });

    it('ranks the exact accented form above its unaccented near-homograph, and the other way round', async () => {
      expect(await ids('bàn')).toEqual(['ban-accent', 'ban-plain']);
      expect(await ids('ban')).toEqual(['ban-plain', 'ban-accent']);
    });

    it('ranks a match in the title field above one in another field', async () => {
      expect(await ids('kangaroo')).toEqual(['in-title', 'in-body']);
    });

    it('understands "phrases", -exclusions and or', async () => {
      expect(await ids('"ha noi"')).toEqual(['hn']);
      expect(await ids('"noi ha"')).toEqual([]);
      expect((await ids('cats')).sort()).toEqual(['cats', 'cats-only']);
      expect(await ids('cats -dogs')).toEqual(['cats-only']);
      expect((await ids('wombat or kangaroo or platypus')).sort()).toEqual(['in-body', 'in-title']);
    });

    it('answers an empty page, never an error, for queries without words or that look like SQL', async () => {
      for (const q of ['!!!', '"', '"unbalanced', '-', '-cats', "'; drop table x; --", '%_\\', ')(*&^', 'or'])
        expect(
          (await ask(q)).hits.map((h) => h.id),
          q,
        ).toEqual(q === '"unbalanced' ? [] : expect.any(Array));
      expect((await ask('!!!')).total).toBe(0);
      expect((await ask('-cats')).total).toBe(0);
    });

    it('highlights the matched words as written, HTML-escaped', async () => {
      const [hit] = (await ask('ha noi')).hits;
      expect(hit!.highlights).toEqual([{ field: 'title', snippet: 'Đường phố <mark>Hà</mark> <mark>Nội</mark>' }]);
      const [html] = (await ask('teeth')).hits;
      expect(html!.highlights).toHaveLength(1);
      expect(html!.highlights[0]!.snippet).toMatch(/^sharp .*<mark>teeth<\/mark>.* &amp; claws$/);
      expect(html!.highlights[0]!.snippet.replace(/<\/?mark>/g, '')).not.toMatch(/[<>]/);
    });

    it('matches, scores and highlights only the fields of the scope', async () => {
      expect(await ids('kangaroo', { scope: { fields: ['title'] } })).toEqual(['in-title']);
      const found = (await ask('kangaroo', { scope: { fields: ['body'] } })).hits;
      expect(found).toMatchObject([{ id: 'in-body', highlights: [{ field: 'body' }] }]);
      expect(await ids('kangaroo', { scope: { fields: [] } })).toEqual([]);
    });

    it('matches only the rows of the scope', async () => {
      expect(await ids('hoa or thuy', { scope: { rows: { status: { _eq: 'published' } } } })).toEqual(['hoa']);
    });

    it('never finds a deleted item', async () => {
      expect(await ids('wombat')).toEqual([]);
    });

    it("never finds another site's items", async () => {
      expect(await ids('platypus')).toEqual([]);
      expect(await ids('platypus', {}, b)).toEqual(['b1']);
      expect(await ids('kangaroo', {}, b)).toEqual([]);
    });

    it('pages the hits and counts them all', async () => {
      const all = await ask('pets or story');
      expect(all.total).toBe(4);
      const page = await ask('pets or story', { limit: 2, offset: 1 });
      expect(page.hits.map((h) => h.id)).toEqual(all.hits.slice(1, 3).map((h) => h.id));
      expect(page.total).toBe(4);
      expect(await ask('pets or story', { offset: 10 })).toEqual({ hits: [], total: 4 });
    });
  });
}
