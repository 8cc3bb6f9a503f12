import { describe, expect, it } from 'vitest';
import { areas, type PermissionMatrix } from '../../studio/src/nav.ts';
import {
  addItemOf,
  deliveryPath,
  isOpen,
  outcomeCounts,
  parseLayout,
  placeErrors,
  scheduleBody,
  toLocalInput,
  windowProblems,
} from '../../studio/src/releases.ts';

const all = { fields: ['*'], conditions: {} };
const matrix = (collections: Record<string, unknown>): PermissionMatrix => ({
  role: 'x',
  roleChain: [],
  admin: false,
  policies: [],
  collections,
});

describe('the release composer', () => {
  it('pins a revision when one is chosen and takes the live state otherwise', () => {
    expect(addItemOf({ collection: 'posts', itemId: 'a', targetStatus: 'published', revisionId: 'r1' })).toEqual({
      collection: 'posts',
      itemId: 'a',
      targetStatus: 'published',
      revisionId: 'r1',
    });
    expect(addItemOf({ collection: 'posts', itemId: 'a', targetStatus: ' ', revisionId: '' })).toEqual({
      collection: 'posts',
      itemId: 'a',
      targetStatus: 'published',
    });
  });

  it('sends the schedule as the API takes it: UTC time, windows or null', () => {
    const local = toLocalInput('2031-05-06T07:08:00.000Z');
    expect(scheduleBody(local, [])).toEqual({ publishAt: '2031-05-06T07:08:00.000Z', maintenanceWindow: null });
    expect(scheduleBody('', [{ dow: 1, start: '02:00', end: '04:00' }])).toEqual({
      publishAt: null,
      maintenanceWindow: { windows: [{ dow: 1, start: '02:00', end: '04:00' }] },
    });
    expect(() => scheduleBody('nonsense', [])).toThrow(RangeError);
    expect(toLocalInput(null)).toBe('');
  });

  it('finds windows the API would refuse, by row', () => {
    const problems = windowProblems([
      { dow: 1, start: '02:00', end: '04:00' },
      { dow: 7, start: '02:00', end: '04:00' },
      { dow: 2, start: '2:00', end: '04:00' },
      { dow: 3, start: '02:00', end: '24:00' },
    ]);
    expect([...problems]).toEqual([
      [1, 'dow'],
      [2, 'start'],
      [3, 'end'],
    ]);
  });

  it('counts outcomes and knows which releases are done', () => {
    expect(
      outcomeCounts([
        { collection: 'p', itemId: 'a', outcome: 'published' },
        { collection: 'p', itemId: 'b', outcome: 'failed', reason: 'ITEM_DELETED' },
        { collection: 'p', itemId: 'c', outcome: 'failed' },
      ]),
    ).toEqual({ published: 1, skipped: 0, failed: 2 });
    expect(isOpen({ status: 'scheduled' })).toBe(true);
    expect(isOpen({ status: 'partially_failed' })).toBe(false);
  });
});

describe('the page editor', () => {
  it('takes an empty layout as none and refuses what is not a JSON object', () => {
    expect(parseLayout('  ')).toEqual({ ok: true, value: null });
    expect(parseLayout('{"rows": []}')).toEqual({ ok: true, value: { rows: [] } });
    expect(parseLayout('[1]')).toEqual({ ok: false });
    expect(parseLayout('{rows')).toEqual({ ok: false });
  });

  it('places the API errors at their fields, the layout ones with their path inside it', () => {
    expect(
      placeErrors([
        { code: 'VALIDATION_FAILED', message: 'too wide', path: ['body', 'layoutConfig', 'rows', '0', 'columns'] },
        { code: 'VALIDATION_FAILED', message: 'bad slug', path: ['slug'] },
        { code: 'SLUG_TAKEN', message: 'taken' },
      ]),
    ).toEqual([
      { field: 'layoutConfig', at: 'rows.0.columns', message: 'too wide' },
      { field: 'slug', at: '', message: 'bad slug' },
      { field: '', at: '', message: 'taken' },
    ]);
  });

  it('links to the public delivery of the page', () => {
    expect(deliveryPath('main', 'blog/hello-world')).toBe('/api/v1/deliver/page/main/blog/hello-world');
  });
});

describe('the releases and pages navigation', () => {
  it('shows releases to callers who may update some collection, pages to callers with a pages rule', () => {
    expect(areas(matrix({ posts: { update: all }, _pages: { read: all } })).map((a) => a.key)).toEqual([
      'releases',
      'pages',
    ]);
    expect(areas(matrix({ posts: { read: all, update: false }, _pages: { read: false } }))).toEqual([]);
    // A rule on a resource is not an update of content.
    expect(areas(matrix({ media: { update: all }, _pages: { update: all } })).map((a) => a.key)).toEqual(['pages']);
  });
});
