import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../setup/app.ts';
import { apiClient } from '../setup/api.ts';

let t: TestApp;
let admin: string;
const { call, ok } = apiClient(
  () => t,
  () => admin,
);
const BOTH = { 'accept-encoding': 'br, gzip' };
const LIST = '/api/v1/items/articles?limit=25';
const varyOf = (res: { headers: Record<string, unknown> }) => String(res.headers.vary ?? '').toLowerCase();

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await ok('POST', '/api/v1/collections', { name: 'articles' });
  await ok('POST', '/api/v1/fields/articles', { field: 'title', type: 'string' });
  await ok('POST', '/api/v1/fields/articles', { field: 'body', type: 'text' });
  const articles = Array.from({ length: 25 }, (_, i) => ({ title: `Article ${i}`, body: `Body of ${i}. `.repeat(20) }));
  await ok('POST', '/api/v1/items/articles', articles);
});
afterAll(() => t.close());

describe('JSON answers of a kilobyte or more', () => {
  it('are sent br to a client that takes br and gzip, with Vary, and decode to the same answer', async () => {
    const plain = await call('GET', LIST);
    expect(plain.rawPayload.length).toBeGreaterThan(10_000);
    const res = await call('GET', LIST, undefined, { headers: BOTH });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(varyOf(res)).toContain('accept-encoding');
    expect(res.rawPayload.length).toBeLessThan(plain.rawPayload.length / 4);
    expect(JSON.parse(brotliDecompressSync(res.rawPayload).toString()).data).toEqual(plain.json().data);
  });

  it('are sent gzip when br is not taken, or refused with q=0', async () => {
    for (const accept of ['gzip', 'gzip, deflate', 'br;q=0, gzip']) {
      const res = await call('GET', LIST, undefined, { headers: { 'accept-encoding': accept } });
      expect(res.headers['content-encoding'], accept).toBe('gzip');
      expect(JSON.parse(gunzipSync(res.rawPayload).toString()).data).toHaveLength(25);
    }
  });

  it('go out as they are without Accept-Encoding (or with identity), still saying Vary', async () => {
    for (const headers of [{}, { 'accept-encoding': 'identity' }] as Record<string, string>[]) {
      const res = await call('GET', LIST, undefined, { headers });
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(varyOf(res)).toContain('accept-encoding');
      expect(res.json().data).toHaveLength(25);
    }
  });

  it('include the OpenAPI document, and error envelopes', async () => {
    const doc = await t.call({ method: 'GET', url: '/api/v1/openapi.json', headers: BOTH });
    expect(doc.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(doc.rawPayload).toString()).openapi).toBe('3.1.0');
    const bad = await call('GET', `/api/v1/items/articles?filter[${'x'.repeat(1500)}][_eq]=1`, undefined, {
      headers: BOTH,
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(bad.rawPayload).toString()).errors[0].code).toBe('VALIDATION_FAILED');
  });

  it('answer HEAD without a body', async () => {
    const res = await call('HEAD' as 'GET', LIST, undefined, { headers: BOTH });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.length).toBe(0);
  });
});

describe('what is never compressed', () => {
  it('an answer under 1 024 bytes', async () => {
    const res = await call('GET', '/api/v1/items/articles?limit=1&fields=title', undefined, { headers: BOTH });
    expect(res.rawPayload.length).toBeLessThan(1024);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.json().data).toHaveLength(1);
  });

  it('stored bytes, even JSON: sent as stored, with their length', async () => {
    const bytes = Buffer.from(JSON.stringify({ rows: Array.from({ length: 200 }, (_, i) => ({ i, text: 'same' })) }));
    const put = await call('POST', '/api/v1/media/data.json', bytes, {
      headers: { 'content-type': 'application/json' },
    });
    expect(put.statusCode, put.body).toBeLessThan(300);
    const res = await call('GET', '/api/v1/media/data.json', undefined, { headers: BOTH });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(Number(res.headers['content-length'])).toBe(bytes.length);
    expect(res.rawPayload.equals(bytes)).toBe(true);
  });

  it('a type other than JSON (the Prometheus metrics)', async () => {
    const res = await t.call({ method: 'GET', url: '/metrics', headers: BOTH });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.length).toBeGreaterThan(1024);
    expect(res.headers['content-encoding']).toBeUndefined();
  });
});

describe('ETag and If-None-Match on a compressed answer', () => {
  it('a delivered page answers br with its ETag, and 304 without a body to that ETag', async () => {
    await ok('POST', '/api/v1/pages', {
      slug: 'long',
      title: 'Long',
      status: 'published',
      layoutConfig: { rows: [{ columns: [{ width: 12, blocks: [{ type: 'text', text: 'Welcome. '.repeat(300) }] }] }] },
    });
    const url = '/api/v1/deliver/page/main/long';
    const first = await t.call({ method: 'GET', url, headers: BOTH });
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-encoding']).toBe('br');
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const plain = await t.call({ method: 'GET', url });
    expect(plain.headers.etag).toBe(etag);
    for (const headers of [BOTH, {}]) {
      const again = await t.call({ method: 'GET', url, headers: { ...headers, 'if-none-match': etag } });
      expect(again.statusCode).toBe(304);
      expect(again.rawPayload.length).toBe(0);
      expect(again.headers['content-encoding']).toBeUndefined();
    }
  });
});
