import { OutboundError, outboundRequest, type OutboundResponse } from '../../../platform/net/outbound-http.ts';
import { TranslationProviderFailed } from '../tm.errors.ts';

/** Options of one call: `markup` says the texts carry `<x id="n"/>` placeholders the provider must keep. */
export interface TranslateOptions {
  markup: boolean;
}

/** A machine-translation service: one translated text per text given, in order. */
export interface TranslationProvider {
  readonly name: string;
  translate(texts: readonly string[], from: string, to: string, opts: TranslateOptions): Promise<string[]>;
}

/** How an adapter reaches its server: always through outboundRequest (DNS checked, no redirects, bounded). */
export interface ProviderTransport {
  url: string;
  apiKey: string | undefined;
  allowPrivate: boolean;
  timeoutMs: number;
}

/** Posts JSON to the provider; a refusal, a failure or an answer that is not JSON becomes 502. */
export async function postJson(name: string, t: ProviderTransport, url: string, body: unknown, headers = {}) {
  let res: OutboundResponse;
  try {
    res = await outboundRequest(url, {
      method: 'POST',
      allowPrivate: t.allowPrivate,
      timeoutMs: t.timeoutMs,
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    throw new TranslationProviderFailed({ provider: name, reason: err.reason, message: err.message });
  }
  if (res.status < 200 || res.status >= 300)
    throw new TranslationProviderFailed({
      provider: name,
      reason: `status_${res.status}`,
      message: `answered ${res.status}`,
    });
  try {
    return JSON.parse(res.text) as unknown;
  } catch {
    throw new TranslationProviderFailed({ provider: name, reason: 'bad_answer', message: 'the answer is not JSON' });
  }
}

/** 502 for an answer of the wrong shape. */
export const badAnswer = (provider: string, message: string) =>
  new TranslationProviderFailed({ provider, reason: 'bad_answer', message });
