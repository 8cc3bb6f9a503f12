import { SaxesParser, type SaxesAttributeNS, type SaxesTagNS } from 'saxes';
import { DomainError } from '../../../kernel/http/errors.ts';
import { UploadMalformed, UploadRootNotSvg } from '../upload.errors.ts';
import type { Cursor } from './cursor.ts';
import {
  ANIMATIONS,
  FORBIDDEN_ELEMENTS,
  LINK_ELEMENT,
  REFERENCE_ATTRIBUTES,
  SVG_VALUE_LIMIT,
  XINCLUDE_NAMESPACE,
  activeContent,
  localName,
  refuseActiveCss,
  refuseActiveScheme,
  refuseExternalUrls,
  refuseReference,
  squash,
} from './svg-rules.ts';

const SVG = 'image/svg+xml';
/** Raw text kept between chunks so a declaration split across them is still seen. */
const CARRY = 16;
/** Style text kept between text events of one `<style>` (an XML comment can split `@import`). */
const STYLE_CARRY = 256;
const XML_NAMESPACE = 'http://www.w3.org/XML/1998/namespace';

/** A value of more than SVG_VALUE_LIMIT bytes is refused before any check reads it. */
function refuseOversized(bytes: number, where: string): void {
  if (bytes > SVG_VALUE_LIMIT) {
    const problem = `${where} holds more than ${SVG_VALUE_LIMIT} bytes, more than the guard inspects in one value`;
    throw new UploadMalformed({ mimeType: SVG, problem });
  }
}

/**
 * Parses an SVG as it streams from disk and refuses active content: DOCTYPE and ENTITY declarations (refused in
 * the raw text, before the parser buffers them), processing instructions, script, embedding, form, link, meta,
 * base and XInclude elements, event handler attributes, script URLs in any attribute, `data:` URIs other than
 * raster images in references, references that load from outside the document (links of `<a>` excepted), `href`
 * animations, and stylesheets that import or reach outside the document. A root other than `<svg>` is a type
 * mismatch; XML that does not parse, or a value or stylesheet over SVG_VALUE_LIMIT, is malformed.
 */
export async function inspectSvg(c: Cursor): Promise<void> {
  const inspector = new SvgInspector();
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    await c.stream(c.size, (chunk) => inspector.write(decoder.decode(chunk, { stream: true })));
    inspector.write(decoder.decode());
    inspector.close();
  } catch (err) {
    if (err instanceof DomainError) throw err;
    const invalidUtf8 = (err as { code?: unknown }).code === 'ERR_ENCODING_INVALID_ENCODED_DATA';
    const problem = invalidUtf8 ? 'it is not valid UTF-8' : err instanceof Error ? err.message : String(err);
    throw new UploadMalformed({ mimeType: SVG, problem });
  }
}

class SvgInspector {
  private readonly parser = new SaxesParser({ xmlns: true, position: true });
  private carry = '';
  private root: string | undefined;
  private style: { where: string; carry: string; bytes: number } | undefined;

  constructor() {
    const p = this.parser;
    p.on('doctype', () => {
      throw activeContent('a DOCTYPE declaration');
    });
    p.on('processinginstruction', ({ target }) => {
      if (target.toLowerCase() !== 'xml') throw activeContent(`a processing instruction <?${target}?>`);
    });
    p.on('opentag', (tag) => this.open(tag));
    p.on('closetag', (tag) => {
      if (this.style && tag.local.toLowerCase() === 'style') this.style = undefined;
    });
    p.on('text', (text) => this.styleText(text));
    p.on('cdata', (text) => this.styleText(text));
  }

  write(text: string): void {
    const window = (this.carry + text).toLowerCase();
    if (window.includes('<!doctype')) throw activeContent('a DOCTYPE declaration');
    if (window.includes('<!entity')) throw activeContent('an ENTITY declaration');
    this.carry = window.slice(-CARRY);
    this.parser.write(text);
  }

  close(): void {
    this.parser.close();
  }

  private open(tag: SaxesTagNS): void {
    const local = tag.local.toLowerCase();
    if (this.root === undefined) {
      this.root = tag.name;
      if (local !== 'svg') throw new UploadRootNotSvg({ root: tag.name });
    }
    if (FORBIDDEN_ELEMENTS.has(local)) throw activeContent(`a <${tag.name}> element`);
    if (tag.uri === XINCLUDE_NAMESPACE) throw activeContent(`an XInclude <${tag.name}> element`);
    const attributes = Object.values(tag.attributes);
    if (ANIMATIONS.has(local)) {
      const target = attributes.find((a) => a.local === 'attributeName')?.value ?? '';
      // By local name: `xlink:href`, `x:href` and `href` all animate the link.
      if (localName(squash(target)) === 'href') throw activeContent(`<${tag.name}> animating ${target.trim()}`);
    }
    for (const attribute of attributes) this.attribute(tag, local, attribute);
    if (local === 'style') this.style = { where: `a <${tag.name}> element`, carry: '', bytes: 0 };
  }

  private attribute(tag: SaxesTagNS, element: string, a: SaxesAttributeNS): void {
    const where = `the ${a.name} attribute of <${tag.name}>`;
    refuseOversized(Buffer.byteLength(a.value), where);
    const name = a.local.toLowerCase();
    if (name.startsWith('on')) throw activeContent(`an event handler: ${where}`);
    if (a.prefix === '' && name === 'style') return refuseActiveCss(a.value, where);
    const letters = squash(a.value);
    refuseActiveScheme(letters, where);
    refuseExternalUrls(letters, where);
    const reference = REFERENCE_ATTRIBUTES.has(name);
    if (reference || (a.uri === XML_NAMESPACE && name === 'base')) {
      refuseReference(letters, where, reference && element === LINK_ELEMENT);
    }
  }

  private styleText(text: string): void {
    if (!this.style) return;
    this.style.bytes += Buffer.byteLength(text);
    refuseOversized(this.style.bytes, this.style.where);
    const css = this.style.carry + text;
    refuseActiveCss(css, this.style.where);
    this.style.carry = css.slice(-STYLE_CARRY);
  }
}
