import { UploadActiveContent } from '../upload.errors.ts';

/** Elements that run script or embed another document. */
export const FORBIDDEN_ELEMENTS = new Set([
  'script',
  'foreignobject',
  'iframe',
  'embed',
  'object',
  'handler',
  'listener',
]);
/** Animation elements that could set a link to a script URL after the checks (`<set attributeName="href">`). */
export const ANIMATIONS = new Set(['set', 'animate', 'animatetransform', 'animatemotion']);
export const LINK_ATTRIBUTES = new Set(['href', 'xlink:href']);

/** URL schemes that run script or load a document wherever a URL is followed. */
const ACTIVE_SCHEMES = ['javascript:', 'vbscript:', 'data:text/html'];
/** CSS that loads other sheets or runs code. */
const ACTIVE_CSS = ['@import', 'expression(', '-moz-binding', 'behavior:'];

export const activeContent = (found: string) => new UploadActiveContent({ found });

/**
 * A value as a browser's URL and CSS parsers would see its letters: lower-cased, without the whitespace and
 * control characters they skip (`java\tscript:` is `javascript:`). Entities are decoded by the XML parser already.
 */
export function squash(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u0020\u007f-\u009f\u00ad\u200b-\u200d\u2060\ufeff]/g, '').toLowerCase();
}

/** CSS with its comments removed and its escapes (`\69` or `\i` for `i`) decoded, then squashed. */
export function cssLetters(css: string): string {
  const decoded = css
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\\([0-9a-fA-F]{1,6})[ \t\r\n\f]?/g, (_, code: string) => codePoint(parseInt(code, 16)))
    .replace(/\\([^\r\n\f])/g, '$1');
  return squash(decoded);
}

function codePoint(code: number): string {
  return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : '\ufffd';
}

/** Refuses a value that names a script URL (`where` says where it was found). */
export function refuseActiveScheme(letters: string, where: string): void {
  for (const scheme of ACTIVE_SCHEMES) {
    if (letters.includes(scheme)) throw activeContent(`${JSON.stringify(scheme)} in ${where}`);
  }
}

/** Refuses a `url(…)` that leaves the document (any scheme but `data:`, or `//host`). */
export function refuseExternalUrls(letters: string, where: string): void {
  for (const match of letters.matchAll(/url\(["']?([^"')]*)/g)) {
    const target = match[1] ?? '';
    if (target.startsWith('//') || (/^[a-z][a-z0-9+.-]*:/.test(target) && !target.startsWith('data:'))) {
      throw activeContent(`an external url(${target}) in ${where}`);
    }
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
