import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a loopback provider received. */
export interface ProviderRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** A word-for-word English → German dictionary the loopback providers translate with, markup left as it is. */
const WORDS = new Map([
  ['hello', 'hallo'],
  ['the', 'die'],
  ['world', 'Welt'],
  ['please', 'bitte'],
  ['click', 'klicken'],
  ['and', 'und'],
  ['wait', 'warten'],
]);
const translate = (text: string) =>
  text.replace(/\p{L}+/gu, (w) => {
    const t = WORDS.get(w.toLowerCase());
    return t === undefined ? w : t;
  });

/**
 * A loopback server speaking DeepL's v2 API (`POST /v2/translate`, `{ translations: [{ detected_source_language,
 * text }] }`) and LibreTranslate's (`POST /translate`, `{ translatedText }`), recording each request. `fail`
 * answers with that status; `delayMs` holds each answer back.
 */
export async function startProviderServer() {
  const received: ProviderRequest[] = [];
  const state = { fail: 0, delayMs: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      received.push({ path: req.url ?? '/', headers: req.headers, body });
      const answer = () => {
        if (state.fail) {
          res.writeHead(state.fail, { 'content-type': 'application/json' });
          return res.end(JSON.stringify({ message: 'upstream failure' }));
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        if (req.url === '/v2/translate') {
          const texts = body.text as string[];
          const translations = texts.map((text) => ({ detected_source_language: 'EN', text: translate(text) }));
          return res.end(JSON.stringify({ translations }));
        }
        if (req.url === '/translate') {
          const q = body.q as string | string[];
          const translatedText = Array.isArray(q) ? q.map(translate) : translate(q);
          return res.end(JSON.stringify({ translatedText }));
        }
        res.writeHead(404);
        res.end();
      };
      if (state.delayMs) setTimeout(answer, state.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
export type ProviderServer = Awaited<ReturnType<typeof startProviderServer>>;
