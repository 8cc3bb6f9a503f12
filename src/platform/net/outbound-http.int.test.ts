import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboundRequest, type OutboundError } from './outbound-http.ts';

let server: Server;
let base: string;
let hits = 0;
beforeAll(async () => {
  server = createServer((req, res) => {
    hits++;
    if (req.url === '/redirect') {
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
      return res.end();
    }
    if (req.url === '/slow') return setTimeout(() => res.end('late'), 3_000).unref();
    if (req.url === '/big') return res.end('x'.repeat(64 * 1024));
    res.end('{"ok":true}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const reason = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: OutboundError) => e.reason ?? e.message,
  );

describe('outboundRequest', () => {
  it('refuses loopback by address and by a name that resolves to it, before connecting', async () => {
    const before = hits;
    expect(await reason(outboundRequest(`${base}/`))).toBe('private_address');
    expect(await reason(outboundRequest(`${base.replace('127.0.0.1', 'localhost')}/`))).toBe('private_address');
    expect(await reason(outboundRequest('http://[::ffff:127.0.0.1]:9/'))).toBe('private_address');
    expect(hits).toBe(before);
  });

  it('reaches a private address only when allowed', async () => {
    const res = await outboundRequest(`${base}/`, { allowPrivate: true });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({ ok: true });
  });

  it('never follows a redirect', async () => {
    expect(await reason(outboundRequest(`${base}/redirect`, { allowPrivate: true }))).toBe('redirect');
  });

  it('gives up after its timeout and past its size cap', async () => {
    expect(await reason(outboundRequest(`${base}/slow`, { allowPrivate: true, timeoutMs: 300 }))).toBe('timeout');
    expect(await reason(outboundRequest(`${base}/big`, { allowPrivate: true, maxBytes: 1024 }))).toBe('too_large');
  });

  it('refuses plain http where only https is allowed, and URLs with credentials', async () => {
    expect(await reason(outboundRequest(`${base}/`, { allowPrivate: true, httpsOnly: true }))).toBe('insecure');
    expect(await reason(outboundRequest('http://user:pw@example.com/'))).toBe('bad_url');
    expect(await reason(outboundRequest('file:///etc/passwd'))).toBe('bad_url');
  });
});
