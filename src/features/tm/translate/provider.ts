import type { Config } from '../../../config.ts';
import { deeplProvider } from './deepl.ts';
import { libreTranslateProvider } from './libretranslate.ts';
import type { ProviderTransport, TranslationProvider } from './transport.ts';

export type { TranslateOptions, TranslationProvider } from './transport.ts';

/** The provider the configuration names, or null when none is configured. */
export function providerFromConfig(config: Config): TranslationProvider | null {
  const name = config.SVC_TRANSLATE_PROVIDER;
  if (!name) return null;
  const transport = (url: string): ProviderTransport => ({
    url: url.replace(/\/+$/, ''),
    apiKey: config.SVC_TRANSLATE_API_KEY,
    allowPrivate: config.SVC_TRANSLATE_ALLOW_PRIVATE,
    timeoutMs: config.SVC_TRANSLATE_TIMEOUT_MS,
  });
  if (name === 'deepl') return deeplProvider(transport(config.SVC_TRANSLATE_URL ?? 'https://api.deepl.com'));
  return libreTranslateProvider(transport(config.SVC_TRANSLATE_URL!));
}
