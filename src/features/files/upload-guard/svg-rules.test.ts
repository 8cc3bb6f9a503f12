import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cssLetters, localName, stripCssComments } from './svg-rules.ts';

describe('stripCssComments', () => {
  it.each([
    ['a/* b */c', 'ac'],
    ['a/*/b*/c', 'ac'],
    ['a/*/', 'a/*/'],
    ['a/* never closed', 'a/* never closed'],
    ['/**/x/* y */z/*', 'xz/*'],
  ])('turns %j into %j', (css, stripped) => expect(stripCssComments(css)).toBe(stripped));

  it('removes what the lazy comment regex removed, on any mix of slashes, stars and letters', () => {
    const css = fc.stringMatching(/^[/* a]{0,200}$/);
    fc.assert(
      fc.property(css, (text) => {
        expect(stripCssComments(text)).toBe(text.replace(/\/\*[\s\S]*?\*\//g, ''));
      }),
    );
  });

  // A lazy regex restarts at every `/*`: on 2 MB of `/* ` it runs for minutes, past the explicit 5 s timeout.
  it('strips 2 MB of unclosed comments in one pass', { timeout: 5_000 }, () => {
    const css = '/* '.repeat((2 * 1024 * 1024) / 3);
    expect(cssLetters(`${css}@import`)).toBe(`${'/*'.repeat(css.length / 3)}@import`);
  });
});

describe('localName', () => {
  it.each([
    ['href', 'href'],
    ['xlink:href', 'href'],
    ['x:href', 'href'],
    ['a:b:href', 'href'],
  ])('of %j is %j', (name, local) => expect(localName(name)).toBe(local));
});
