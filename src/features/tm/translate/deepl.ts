import { badAnswer, postJson, type ProviderTransport, type TranslationProvider } from './transport.ts';

/** DeepL's language codes: the source by its language alone (EN), the target with its variant (EN-GB, PT-BR). */
const sourceCode = (tag: string) => tag.split('-')[0]!.toUpperCase();
const targetCode = (tag: string) => tag.toUpperCase();

/**
 * DeepL's API v2: `POST /v2/translate` with `Authorization: DeepL-Auth-Key <key>` and a JSON body (`text` a list);
 * placeholders survive as XML tags (`tag_handling=xml`) whose content is left alone (`ignore_tags`).
 */
export function deeplProvider(t: ProviderTransport): TranslationProvider {
  return {
    name: 'deepl',
    async translate(texts, from, to, opts) {
      const body = {
        text: texts,
        source_lang: sourceCode(from),
        target_lang: targetCode(to),
        ...(opts.markup ? { tag_handling: 'xml', ignore_tags: ['x'] } : {}),
      };
      const answer = await postJson('deepl', t, `${t.url}/v2/translate`, body, {
        authorization: `DeepL-Auth-Key ${t.apiKey ?? ''}`,
      });
      const list = (answer as { translations?: unknown } | null)?.translations;
      if (!Array.isArray(list) || list.length !== texts.length) throw badAnswer('deepl', 'no translations list');
      return list.map((x: unknown) => {
        const text = (x as { text?: unknown } | null)?.text;
        if (typeof text !== 'string') throw badAnswer('deepl', 'a translation without text');
        return text;
      });
    },
  };
}
