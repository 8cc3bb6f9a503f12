import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostileSvgs, svgWithLongPath, svgWithUnclosedComments } from '../../../../test/fixtures/uploads/corpus.ts';
import { uploadGuard } from '../../../../test/fixtures/uploads/guard.ts';

let guard: Awaited<ReturnType<typeof uploadGuard>>;
beforeAll(async () => {
  guard = await uploadGuard();
});
afterAll(() => guard.remove());

const svg = (body: string) =>
  Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">${body}</svg>`);

describe('inspectUpload on SVG', () => {
  it.each([
    ['onload', /an event handler: the onload attribute of <svg>/],
    ['script', /a <script> element/],
    ['scriptInNamespace', /a <h:script> element/],
    ['foreignObject', /a <foreignObject> element/],
    ['javascriptHref', /"javascript:" in the href attribute of <a>/],
    ['dataHtmlXlinkHref', /"data:text\/html" in the xlink:href attribute of <a>/],
    ['externalEntity', /a DOCTYPE declaration/],
    ['setHref', /<set> animating href/],
    ['animateXlinkHref', /<animate> animating xlink:href/],
    ['importInStyle', /@import in a <style> element/],
    ['escapedImportInStyle', /@import in a <style> element/],
    ['importSplitByComment', /@import in a <style> element/],
    ['externalUrlInStyleAttribute', /an external url\(https:\/\/evil.example\/p.svg#p\) in the style attribute/],
    ['stylesheetInstruction', /a processing instruction <\?xml-stylesheet\?>/],
    ['dataSvgImage', /a data:image\/svg\+xml URI in the href attribute of <image>/],
    ['dataXhtmlUse', /a data:application\/xhtml\+xml URI in the xlink:href attribute of <use>/],
    ['dataTextUnderAnyPrefix', /a data:text\/plain URI in the l:href attribute of <image>/],
    ['setPrefixedHref', /<set> animating x:href/],
    ['linkElement', /a <link> element/],
    ['metaRefresh', /a <meta> element/],
    ['formElement', /a <form> element/],
    ['baseElement', /a <base> element/],
    ['xinclude', /an XInclude <xi:include> element/],
    [
      'externalImage',
      /an external reference to "https:\/\/evil.example\/pixel.png\?u=victim" in the href attribute of <image>/,
    ],
    ['externalFeImage', /an external reference to "\/\/evil.example\/x.png" in the xlink:href attribute of <feImage>/],
    ['fileUse', /an external reference to "file:\/\/\/etc\/passwd#x" in the href attribute of <use>/],
    ['ftpUse', /an external reference to "ftp:\/\/evil.example\/s.svg#a" in the xlink:href attribute of <use>/],
    ['externalXmlBase', /an external reference to "https:\/\/evil.example\/" in the xml:base attribute of <g>/],
  ] as const)('refuses the %s fixture with UPLOAD_ACTIVE_CONTENT', async (key, message) => {
    const err = await guard.refusal(hostileSvgs[key], 'x.svg');
    expect([err.code, err.message]).toEqual(['UPLOAD_ACTIVE_CONTENT', expect.stringMatching(message)]);
  });

  it.each([
    ['an upper-case event handler', '<rect ONCLICK="x()"/>', /the ONCLICK attribute of <rect>/],
    [
      'a script URL behind entities and a newline',
      '<a href="&#x20;JaVa&#10;ScRiPt:x()"/>',
      /"javascript:" in the href/,
    ],
    [
      'a style url() to another host',
      '<style>rect { fill: url(//evil.example/p#x) }</style>',
      /an external url\(\/\/evil/,
    ],
    ['a CSS expression', '<rect style="width: expression(alert(1))"/>', /expression\( in the style attribute/],
    ['an iframe', '<iframe src="https://example.com"/>', /a <iframe> element/],
    ['an ENTITY declaration alone', '<!ENTITY x "y">', /an ENTITY declaration/],
  ])('refuses %s', async (_name, body, message) => {
    const err = await guard.refusal(svg(body), 'x.svg');
    expect([err.code, err.message]).toEqual(['UPLOAD_ACTIVE_CONTENT', expect.stringMatching(message)]);
  });

  it.each([
    ['local references', '<use href="#a"/><rect fill="url(#g)" style="fill: url(#g)"/>'],
    ['a link to a web page', '<a href="https://example.com/"><text>x</text></a>'],
    ['an animation of a geometry attribute', '<circle r="1"><set attributeName="r" to="2"/></circle>'],
    ['an embedded raster image', '<image href="data:image/png;base64,iVBORw0KGgo="/>'],
    ['an attribute that only contains "on"', '<text font-family="Monaco" text-anchor="middle">on</text>'],
    [
      'embedded JPEG, GIF, WebP and AVIF images',
      '<image href="data:image/jpeg;base64,/9j/4A=="/><image xlink:href="data:image/gif;base64,R0lGOD=="/>' +
        '<image href="data:image/webp;base64,UklGRg=="/><image href="data:image/avif;base64,AAAAHGZ0eXA="/>',
    ],
    ['a raster image beside the drawing', '<image href="photo.png" width="10" height="10"/>'],
    ['a mail link', '<a xlink:href="mailto:someone@example.com"><text>x</text></a>'],
    ['an animation of a link-like but other attribute', '<a><set attributeName="x:hreflang" to="en"/></a>'],
  ])('accepts %s', async (_name, body) => {
    expect(await guard.inspect(svg(body), 'x.svg')).toEqual({ mimeType: 'image/svg+xml', extension: 'svg' });
  });

  describe('on values too large to inspect', () => {
    const MB = 1024 * 1024;

    // 2 MB of `/* ` never closed: a lazy comment regex would run for minutes; the explicit 5 s timeout catches it.
    it('refuses a 2 MB <style> of unclosed comments with UPLOAD_MALFORMED', { timeout: 5_000 }, async () => {
      const err = await guard.refusal(svgWithUnclosedComments(2 * MB), 'x.svg');
      expect([err.code, err.message]).toEqual([
        'UPLOAD_MALFORMED',
        expect.stringMatching(/a <style> element holds more than 1048576 bytes/),
      ]);
    });

    it('refuses a path whose d attribute is over 1 MB with UPLOAD_MALFORMED', async () => {
      const err = await guard.refusal(svgWithLongPath(1100 * 1024), 'x.svg');
      expect([err.code, err.message]).toEqual([
        'UPLOAD_MALFORMED',
        expect.stringMatching(/the d attribute of <path> holds more than 1048576 bytes/),
      ]);
    });

    it('accepts a <style> of unclosed comments just under the limit', { timeout: 5_000 }, async () => {
      const body = svgWithUnclosedComments(1020 * 1024);
      expect(await guard.inspect(body, 'x.svg')).toEqual({ mimeType: 'image/svg+xml', extension: 'svg' });
    });
  });
});
