import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  aliasOf,
  aliasParts,
  generationOf,
  isGenerationOf,
  highlightsOf,
  markup,
  MARK_START,
  MARK_STOP,
  plainText,
  typesenseDocument,
} from './typesense-documents.ts';

describe('Typesense documents', () => {
  it('drops Vietnamese accents, đ included, whether the text comes composed or decomposed', () => {
    expect(plainText('Đường phố Hà Nội')).toBe('Duong pho Ha Noi');
    expect(plainText('Ha\u0300 No\u0302\u0323i')).toBe('Ha Noi');
    expect(plainText('hoà')).toBe(plainText('hòa'));
    expect(plainText('thuý')).toBe(plainText('thúy'));
  });

  it('leaves text without marks as it is, and is idempotent', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const once = plainText(s);
        expect(plainText(once)).toBe(once);
        expect(/\p{M}/u.test(once.normalize('NFD'))).toBe(false);
      }),
    );
    expect(plainText('plain words 123')).toBe('plain words 123');
  });

  it('holds each field twice, as written and unaccented, under prefixes no field name can collide with', () => {
    const doc = typesenseDocument({
      collection: 'articles',
      id: 'a1',
      fields: [
        { field: 'title', text: 'Hà Nội', weight: 'A' },
        { field: '__proto__', text: 'x', weight: 'B' },
        { field: 't_title', text: 'other', weight: 'B' },
      ],
    });
    expect({ ...doc }).toEqual({
      id: 'a1',
      t_title: 'Hà Nội',
      u_title: 'Ha Noi',
      t___proto__: 'x',
      u___proto__: 'x',
      t_t_title: 'other',
      u_t_title: 'other',
    });
    expect(Object.getPrototypeOf(doc)).toBeNull();
  });

  it('names aliases per site and collection, and generations per alias', () => {
    expect(aliasOf('svc_', 'main', 'articles')).toBe('svc_main__articles');
    expect(aliasOf('svc_', 'a-b', 'c_d')).not.toBe(aliasOf('svc_', 'a', 'b_c_d'));
    expect(generationOf('svc_main__articles', 36 ** 3)).toBe('svc_main__articles-g1000');
    // A generation of `posts` is never taken for one of `posts__gallery`, nor the other way round.
    expect(isGenerationOf('svc_main__posts', 'svc_main__posts-g1000')).toBe(true);
    expect(isGenerationOf('svc_main__posts', 'svc_main__posts__gallery-g1000')).toBe(false);
    expect(isGenerationOf('svc_main__posts', 'svc_main__posts')).toBe(false);
  });

  it('reads back only the aliases its own prefix names, never those of another instance', () => {
    expect(aliasParts('svc_', 'svc_main__articles')).toEqual({ siteId: 'main', collection: 'articles' });
    expect(aliasParts('svc_', 'svc_b_site1__posts')).toBeNull();
    expect(aliasParts('svc_', 'other_main__articles')).toBeNull();
    expect(aliasParts('svc_', 'svc_main__articles-g1000')).toBeNull();
  });

  it('escapes snippets and marks matches, only for visible fields, preferring the copy as written', () => {
    const m = (s: string) => `${MARK_START}${s}${MARK_STOP}`;
    expect(markup(`<b>${m('Hà')}</b> & "x"`)).toBe('&lt;b&gt;<mark>Hà</mark>&lt;/b&gt; &amp; &quot;x&quot;');
    const found = [
      { field: 'u_title', snippet: `${m('Ha')} Noi` },
      { field: 't_title', snippet: `${m('Hà')} Nội` },
      { field: 't_secret', snippet: `${m('Hà')} hidden` },
      { field: 't_body', snippet: 'no match here' },
    ];
    expect(highlightsOf(found, new Set(['title', 'body']))).toEqual([
      { field: 'title', snippet: '<mark>Hà</mark> Nội' },
    ]);
  });
});
