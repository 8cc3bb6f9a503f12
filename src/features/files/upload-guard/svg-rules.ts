import { UploadActiveContent } from '../upload.errors.ts';

/** Elements that run script, embed another document, submit data or redirect the document's links and metadata. */
export const FORBIDDEN_ELEMENTS = new Set([
  'script',
  'foreignobject',
  'iframe',
  'embed',
  'object',
  'handler',
  'listener',
  'link',
  'meta',
  'form',
  'base',
]);
/** XInclude pulls another document into this one wherever a processor honours it. */
export const XINCLUDE_NAMESPACE = 'http://www.w3.org/2001/XInclude';
/** Animation elements that could set a link to a script URL after the checks (`<set attributeName="href">`). */
export const ANIMATIONS = new Set(['set', 'animate', 'animatetransform', 'animatemotion', 'animatecolor']);
/** Attributes (by local name, whatever their prefix) whose value a browser follows or loads. */
export const REFERENCE_ATTRIBUTES = new Set(['href', 'src']);
/** The one element whose reference is a link the reader follows, not something the document loads. */
export const LINK_ELEMENT = 'a';
/**
 * The most the guard inspects of one attribute value or one `<style>` element (UTF-8 bytes). Every check is linear,
 * so the cap is defence in depth: it bounds the work a single value can cost.
 */
export const SVG_VALUE_LIMIT = 1024 * 1024;

/** URL schemes that run script or load a document wherever a URL is followed. */
const ACTIVE_SCHEMES = ['javascript:', 'vbscript:', 'data:text/html'];
/** CSS that loads other sheets or runs code. */
const ACTIVE_CSS = ['@import', 'expression(', '-moz-binding', 'behavior:'];
/** The `data:` URIs a reference may hold: raster images, which run nothing wherever they are shown. */
const RASTER_DATA_URI = /^data:image\/(?:png|jpe?g|gif|webp|avif)[;,]/;
const SCHEME = /^[a-z][a-z0-9+.-]*:/;

export const activeContent = (found: string) => new UploadActiveContent({ found });

/**
 * A value as a browser's URL and CSS parsers would see its letters: lower-cased, without the whitespace and
 * control characters they skip (`java\tscript:` is `javascript:`). Entities are decoded by the XML parser already.
 */
export function squash(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u0020\u007f-\u009f\u00ad\u200b-\u200d\u2060\ufeff]/g, '').toLowerCase();
}

/**
 * CSS without its comments. An indexOf loop, linear in the text: a lazy regex restarts its scan at every `/*`
 * that is never closed, quadratic on a stylesheet of `/* ` repeated. An unclosed comment is kept, so its text is
 * still inspected.
 */
export function stripCssComments(css: string): string {
  const parts: string[] = [];
  let from = 0;
  for (let open = css.indexOf('/*'); open !== -1; open = css.indexOf('/*', from)) {
    const close = css.indexOf('*/', open + 2);
    if (close === -1) break;
    parts.push(css.slice(from, open));
    from = close + 2;
  }
  parts.push(css.slice(from));
  return parts.join('');
}

/** CSS with its comments removed and its escapes (`\69` or `\i` for `i`) decoded, then squashed. */
export function cssLetters(css: string): string {
  const decoded = stripCssComments(css)
    .replace(/\\([0-9a-fA-F]{1,6})[ \t\r\n\f]?/g, (_, code: string) => codePoint(parseInt(code, 16)))
    .replace(/\\([^\r\n\f])/g, '$1');
  return squash(decoded);
}

function codePoint(code: number): string {
  return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : '\ufffd';
}

/** The local part of a (squashed) qualified name: `xlink:href` and `x:href` are both `href`. */
export const localName = (qualified: string) => qualified.slice(qualified.lastIndexOf(':') + 1);

/** Refuses a value that names a script URL (`where` says where it was found). */
export function refuseActiveScheme(letters: string, where: string): void {
  for (const scheme of ACTIVE_SCHEMES) {
    if (letters.includes(scheme)) throw activeContent(`${JSON.stringify(scheme)} in ${where}`);
  }
}

/** True for a URL that leaves the document: a scheme other than `data:`, or `//host`. */
const leavesDocument = (target: string) =>
  target.startsWith('//') || (SCHEME.test(target) && !target.startsWith('data:'));

/** Refuses a `url(…)` that leaves the document. */
export function refuseExternalUrls(letters: string, where: string): void {
  for (const match of letters.matchAll(/url\(["']?([^"')]*)/g)) {
    const target = match[1] ?? '';
    if (leavesDocument(target)) throw activeContent(`an external url(${target}) in ${where}`);
  }
}

/**
 * Refuses a reference (`href`, `src`, `xml:base`) that embeds a document (a `data:` URI of anything but a raster
 * image) or, unless it is a link the reader follows (`linksOut`), loads something from outside the document.
 */
export function refuseReference(letters: string, where: string, linksOut: boolean): void {
  if (letters.startsWith('data:') && !RASTER_DATA_URI.test(letters)) {
    throw activeContent(`a ${letters.slice(0, 64).split(/[;,]/)[0]} URI in ${where}`);
  }
  if (!linksOut && leavesDocument(letters)) {
    throw activeContent(`an external reference to ${JSON.stringify(letters.slice(0, 64))} in ${where}`);
  }
}

/** Refuses stylesheet text that imports, binds or reaches outside the document. */
export function refuseActiveCss(css: string, where: string): void {
  const letters = cssLetters(css);
  for (const construct of ACTIVE_CSS) {
    if (letters.includes(construct)) throw activeContent(`${construct} in ${where}`);
  }
  refuseActiveScheme(letters, where);
  refuseExternalUrls(letters, where);
}
