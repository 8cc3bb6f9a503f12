import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostileSvgs } from '../../../../test/fixtures/uploads/corpus.ts';
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
  ])('accepts %s', async (_name, body) => {
    expect(await guard.inspect(svg(body), 'x.svg')).toEqual({ mimeType: 'image/svg+xml', extension: 'svg' });
  });
});
