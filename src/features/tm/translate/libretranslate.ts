import { badAnswer, postJson, type ProviderTransport, type TranslationProvider } from './transport.ts';

/** LibreTranslate names languages by their language subtag, but for the variants it knows as such. */
const VARIANTS: ReadonlySet<string> = new Set(['zh-Hans', 'zh-Hant', 'pt-BR']);
const code = (tag: string) => (VARIANTS.has(tag) ? tag : tag.split('-')[0]!);

/**
 * LibreTranslate: `POST /translate { q, source, target, format, api_key }`; `q` a list answers `translatedText` as a
 * list. Placeholders go as HTML (`format: html`), which it keeps.
 */
export function libreTranslateProvider(t: ProviderTransport): TranslationProvider {
  return {
    name: 'libretranslate',
    async translate(texts, from, to, opts) {
      const body = {
        q: texts,
        source: code(from),
        target: code(to),
        format: opts.markup ? 'html' : 'text',
        ...(t.apiKey ? { api_key: t.apiKey } : {}),
      };
      const answer = await postJson('libretranslate', t, `${t.url}/translate`, body);
      const out = (answer as { translatedText?: unknown } | null)?.translatedText;
      const list = typeof out === 'string' ? [out] : out;
      if (!Array.isArray(list) || list.length !== texts.length || !list.every((x) => typeof x === 'string'))
        throw badAnswer('libretranslate', 'no translatedText');
      return list as string[];
    },
  };
}
