import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fold } from '../../kernel/es/decider.ts';
import { deciderSpec, runCommands } from '../../../test/support/decider-spec.ts';
import { pageDecider, slugDecider, type PageCommand } from './page.decider.ts';
import type { PageEvent } from '../../contracts/pages/page.events.ts';
import { LayoutConfig } from '../../contracts/pages/page.layout.ts';

const given = deciderSpec(pageDecider);
const claims = deciderSpec(slugDecider);
const now = '2026-03-01T10:00:00.000Z';
const at = { pageId: 'p1', now, by: 'u1' };
const created: PageEvent = {
  type: 'PageCreated',
  data: { pageId: 'p1', slug: 'home', title: 'Home', status: 'draft', layoutConfig: null, at: now, by: 'u1' },
};
const create = (slug = 'home'): PageCommand => ({
  type: 'CreatePage',
  data: { ...at, slug, title: 'Home', status: 'draft', layoutConfig: null },
});

describe('Page', () => {
  describe('when absent', () => {
    it('creates the page', () => given([]).when(create()).then([created]));
    it('refuses a slug outside the pattern with VALIDATION_FAILED', () =>
      given([]).when(create('Not a slug')).thenThrows('VALIDATION_FAILED'));
    it('refuses a slug of 201 characters', () =>
      given([])
        .when(create('a'.repeat(201)))
        .thenThrows('VALIDATION_FAILED'));
    it('answers an update with NOT_FOUND', () =>
      given([])
        .when({ type: 'UpdatePage', data: { ...at, title: 'x' } })
        .thenThrows('NOT_FOUND'));
    it('answers a delete with NOT_FOUND', () =>
      given([]).when({ type: 'DeletePage', data: at }).thenThrows('NOT_FOUND'));
  });

  describe('when created', () => {
    it('records a rename with the slug it had', () =>
      given([created])
        .when({ type: 'UpdatePage', data: { ...at, slug: 'start', title: 'Home' } })
        .then([
          {
            type: 'PageUpdated',
            data: { pageId: 'p1', slug: 'start', changes: { slug: 'start' }, previousSlug: 'home', at: now, by: 'u1' },
          },
        ]));
    it('records a status change with the current slug', () =>
      given([created])
        .when({ type: 'UpdatePage', data: { ...at, status: 'published' } })
        .then([
          {
            type: 'PageUpdated',
            data: { pageId: 'p1', slug: 'home', changes: { status: 'published' }, at: now, by: 'u1' },
          },
        ]));
    it('emits nothing for an update that changes nothing', () =>
      given([created])
        .when({ type: 'UpdatePage', data: { ...at, slug: 'home', layoutConfig: null } })
        .then([]));
    it('deletes the page with its slug', () =>
      given([created])
        .when({ type: 'DeletePage', data: at })
        .then([{ type: 'PageDeleted', data: { pageId: 'p1', slug: 'home', at: now, by: 'u1' } }]));
    it('rejects a second create with CONFLICT', () => given([created]).when(create()).thenThrows('CONFLICT'));
  });

  describe('when deleted', () => {
    const deleted: PageEvent = { type: 'PageDeleted', data: { pageId: 'p1', slug: 'home', at: now, by: 'u1' } };
    it('stays deleted: no update, no second life under the same id', () => {
      given([created, deleted])
        .when({ type: 'UpdatePage', data: { ...at, title: 'x' } })
        .thenThrows('NOT_FOUND');
      given([created, deleted]).when(create()).thenThrows('CONFLICT');
    });
  });

  const slugArb = fc.constantFrom('home', 'about', 'blog/post-1', 'Bad Slug');
  const commandArb: fc.Arbitrary<PageCommand> = fc.oneof(
    slugArb.map(create),
    fc
      .record(
        {
          slug: slugArb,
          title: fc.string({ minLength: 1, maxLength: 4 }),
          status: fc.constantFrom('draft', 'published'),
        },
        { requiredKeys: [] },
      )
      .map((d): PageCommand => ({ type: 'UpdatePage', data: { ...at, ...d } })),
    fc.constant<PageCommand>({ type: 'DeletePage', data: at }),
  );

  it('folding the accepted events gives the state reached step by step', () =>
    fc.assert(
      fc.property(fc.array(commandArb, { maxLength: 30 }), (commands) => {
        const { state, events } = runCommands(pageDecider, commands);
        expect(fold(pageDecider, events)).toEqual(state);
      }),
    ));
});

describe('Page slug', () => {
  const claim = (pageId: string) => ({ type: 'ClaimSlug' as const, data: { slug: 'home', pageId, now } });
  const release = (pageId: string) => ({ type: 'ReleaseSlug' as const, data: { slug: 'home', pageId, now } });
  const claimed = { type: 'PageSlugClaimed' as const, data: { slug: 'home', pageId: 'p1', at: now } };
  const released = { type: 'PageSlugReleased' as const, data: { slug: 'home', pageId: 'p1', at: now } };

  it('is claimed by the first page', () => claims([]).when(claim('p1')).then([claimed]));
  it('refuses another page with CONFLICT while held', () => claims([claimed]).when(claim('p2')).thenThrows('CONFLICT'));
  it('lets the holder claim it again without an event', () => claims([claimed]).when(claim('p1')).then([]));
  it('is released only by its holder', () => {
    claims([claimed]).when(release('p2')).then([]);
    claims([claimed]).when(release('p1')).then([released]);
  });
  it('is free again once released', () =>
    claims([claimed, released])
      .when(claim('p2'))
      .then([{ ...claimed, data: { ...claimed.data, pageId: 'p2' } }]));

  it('never has two holders, whatever the order of claims and releases', () =>
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.constantFrom('p1', 'p2', 'p3')), { maxLength: 40 }), (steps) => {
        let owner: string | null = null;
        const { state } = runCommands(
          slugDecider,
          steps.map(([take, p]) => (take ? claim(p) : release(p))),
        );
        for (const [take, p] of steps) {
          if (take && owner === null) owner = p;
          else if (!take && owner === p) owner = null;
        }
        expect(state.owner).toBe(owner);
      }),
    ));
});

describe('LayoutConfig', () => {
  const item = (i: number) => ({ type: 'item', collection: 'articles', itemId: `a${i}` });
  const row = (blocks: unknown[]) => ({ columns: [{ width: 12, blocks }] });

  it('accepts rows of columns of item and text blocks', () =>
    expect(
      LayoutConfig.safeParse({
        rows: [
          {
            columns: [
              { width: 8, blocks: [item(1), { type: 'text', text: 'hi' }] },
              { width: 4, blocks: [] },
            ],
          },
        ],
      }).success,
    ).toBe(true));

  it('names the path of each problem', () => {
    const r = LayoutConfig.safeParse({
      rows: [{ columns: [{ width: 13, blocks: [{ type: 'video' }] }] }, { columns: [{ width: 8 }] }],
    });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.path.join('.'))).toEqual([
      'rows.0.columns.0.width',
      'rows.0.columns.0.blocks.0.type',
      'rows.1.columns.0.blocks',
    ]);
    const wide = LayoutConfig.safeParse({
      rows: [
        {
          columns: [
            { width: 8, blocks: [] },
            { width: 8, blocks: [] },
          ],
        },
      ],
    });
    expect(wide.error!.issues.map((i) => i.path.join('.'))).toEqual(['rows.0.columns']);
  });

  it('refuses more than 50 rows, 12 columns and 100 item blocks', () => {
    expect(LayoutConfig.safeParse({ rows: Array.from({ length: 51 }, () => row([])) }).success).toBe(false);
    const cols = Array.from({ length: 13 }, () => ({ width: 1, blocks: [] }));
    expect(LayoutConfig.safeParse({ rows: [{ columns: cols }] }).success).toBe(false);
    const many = {
      rows: [row(Array.from({ length: 60 }, (_, i) => item(i))), row(Array.from({ length: 41 }, (_, i) => item(i)))],
    };
    const r = LayoutConfig.safeParse(many);
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.path).toEqual(['rows']);
    many.rows[1]!.columns[0]!.blocks.pop();
    expect(LayoutConfig.safeParse(many).success).toBe(true);
  });
});
