import { describe, expect, it } from 'vitest';
import { acceptsHtml } from './http/studio.serve.ts';
import { renderShell } from './shell.ts';

describe('renderShell', () => {
  it('puts the base first in the head and the nonce on scripts, styles and stylesheets only', () => {
    const html = renderShell(
      '<html><head lang="en"><base href="/elsewhere/"><SCRIPT src="a.js"></SCRIPT><link href="x.css" rel=stylesheet>' +
        '<link rel="icon" href="i.svg"><style nonce="old">a{}</style></head></html>',
      '/my-admin',
      'N1',
    );
    expect(html).toBe(
      '<html><head lang="en"><base href="/my-admin/"><SCRIPT nonce="N1" src="a.js"></SCRIPT>' +
        '<link nonce="N1" href="x.css" rel=stylesheet><link rel="icon" href="i.svg"><style nonce="N1">a{}</style></head></html>',
    );
  });
  it('escapes what it writes into attributes', () => {
    expect(renderShell('<head>', '/a"b', 'x<y')).toBe('<head><base href="/a&quot;b/">');
  });
});

describe('acceptsHtml', () => {
  it.each([
    [undefined, true],
    ['text/html', true],
    ['text/html;q=0.9, application/json', true],
    ['*/*', true],
    ['application/json', false],
    ['text/html;q=0, application/json', false],
    ['image/avif,image/webp', false],
  ])('%s → %s', (accept, expected) => expect(acceptsHtml(accept)).toBe(expected));
});
