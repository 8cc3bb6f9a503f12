import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../setup/app.ts';
import { createUser } from '../setup/users.ts';

let t: TestApp;
let admin: string;
let subscriber: string;
beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  subscriber = await createUser(t, 'sub@example.com', 'Subscriber-pass-42!', { main: 'subscriber' });
  const post = (url: string, payload: object) => t.call({ method: 'POST', url, as: admin, site: 'main', payload });
  await post('/api/v1/collections', { name: 'articles' });
  await post('/api/v1/fields/articles', { field: 'title', type: 'string' });
  await post('/api/v1/items/articles', { title: 'one' });
});
afterAll(() => t.close());

const createArticle = async (title: string): Promise<string> =>
  (await t.call({ method: 'POST', url: '/api/v1/items/articles', as: admin, site: 'main', payload: { title } })).json()
    .data.id as string;

const envelopeError = (body: string) => {
  const parsed = JSON.parse(body) as { errors: { code: string; path: string[]; extensions: { reason?: string } }[] };
  expect(Object.keys(parsed)).toEqual(['errors']);
  return parsed.errors[0]!;
};

describe('the edge refuses prototype-named keys', () => {
  it.each([
    ['filter[__proto__][beta][_eq]=1'],
    ['filter[title][constructor]=1'],
    ['filter[_and][0][prototype][_eq]=1'],
    ['deep[__proto__][x][fields]=y'],
    ['sort=constructor'],
    ['fields=title,__proto__.x'],
    ['groupBy=prototype'],
    ['aggregate[count]=constructor'],
  ])('GET /api/v1/items/articles?%s answers 400 and leaves Object.prototype alone', async (qs) => {
    for (const as of [admin, subscriber]) {
      const res = await t.call({ method: 'GET', url: `/api/v1/items/articles?${qs}`, as, site: 'main' });
      expect(res.statusCode).toBe(400);
      expect(envelopeError(res.body)).toMatchObject({
        code: 'VALIDATION_FAILED',
        extensions: { reason: 'forbidden_key' },
      });
    }
    expect(Object.prototype).not.toHaveProperty('beta');
    // Writes of every member still work afterwards (a polluted prototype made them all 403).
    const write = await t.call({
      method: 'POST',
      url: '/api/v1/items/articles',
      as: admin,
      site: 'main',
      payload: { title: 'x' },
    });
    expect(write.statusCode).toBe(201);
  });

  it.each([
    ['{"__proto__": {"polluted": true}}', ['body', '__proto__']],
    ['{"title": "a", "x": {"constructor": {"prototype": {"polluted": true}}}}', ['body', 'x', 'constructor']],
    ['[{"prototype": 1}]', ['body', '0', 'prototype']],
  ])('a JSON body %s answers 400 at its path', async (payload, path) => {
    const res = await t.call({
      method: 'POST',
      url: '/api/v1/items/articles',
      as: admin,
      site: 'main',
      headers: { 'content-type': 'application/json' },
      payload,
    });
    expect(res.statusCode).toBe(400);
    expect(envelopeError(res.body)).toMatchObject({ code: 'VALIDATION_FAILED', path });
  });

  it.each(['constructor', '__proto__', 'prototype'])('a path id %s answers 400', async (id) => {
    for (const url of [
      `/api/v1/items/articles/${id}`,
      `/api/v1/collections/${id}`,
      `/api/v1/policies/${id}/permissions`,
    ]) {
      const res = await t.call({ method: 'GET', url, as: admin, site: 'main' });
      expect(res.statusCode).toBe(400);
      expect(envelopeError(res.body).path[0]).toBe('params');
    }
  });
});

describe('the edge refuses text PostgreSQL cannot store', () => {
  const post = (payload: string) =>
    t.call({
      method: 'POST',
      url: '/api/v1/items/articles',
      as: admin,
      site: 'main',
      headers: { 'content-type': 'application/json' },
      payload,
    });

  it('NUL and lone surrogates in body strings and keys answer 400 with their path', async () => {
    expect(envelopeError((await post('{"title": "a\\u0000b"}')).body)).toMatchObject({
      path: ['body', 'title'],
      extensions: { reason: 'nul' },
    });
    expect(envelopeError((await post('{"title": "a\\ud800"}')).body)).toMatchObject({
      path: ['body', 'title'],
      extensions: { reason: 'lone_surrogate' },
    });
    expect(envelopeError((await post('{"ti\\udc00tle": "a"}')).body).extensions.reason).toBe('lone_surrogate');
  });

  it('JSON nested 10 000 deep answers 400, not a crash', async () => {
    const deep = '{"title":' + '['.repeat(10_000) + ']'.repeat(10_000) + '}';
    const res = await post(deep);
    expect(res.statusCode).toBe(400);
    expect(envelopeError(res.body).extensions.reason).toBe('too_deep');
  });

  it('NUL and lone surrogates in queries and paths answer 400', async () => {
    for (const url of [
      '/api/v1/items/articles?filter[title][_eq]=a%00b',
      '/api/v1/items/articles/a%00b',
      '/api/v1/items/articles?fields=title%00',
    ]) {
      const res = await t.call({ method: 'GET', url, as: admin, site: 'main' });
      expect(res.statusCode, url).toBe(400);
      expect(envelopeError(res.body).code).toBe('VALIDATION_FAILED');
    }
  });
});

describe('answers the router and the HTTP parser give are in the envelope', () => {
  it('a % in the path answers 400', async () => {
    const res = await t.call({ method: 'GET', url: '/api/v1/items/%', as: admin, site: 'main' });
    expect(res.statusCode).toBe(400);
    expect(envelopeError(res.body)).toMatchObject({ code: 'VALIDATION_FAILED', extensions: { reason: 'bad_url' } });
  });

  it('a path parameter over the limit answers 414', async () => {
    const res = await t.call({
      method: 'GET',
      url: `/api/v1/items/articles/${'x'.repeat(300)}`,
      as: admin,
      site: 'main',
    });
    expect(res.statusCode).toBe(414);
    expect(envelopeError(res.body)).toMatchObject({ code: 'VALIDATION_FAILED', extensions: { reason: 'too_long' } });
  });

  it('a bodiless request with Content-Type: application/json is a request without a body', async () => {
    const id = await createArticle('gone');
    const res = await t.call({
      method: 'DELETE',
      url: `/api/v1/items/articles/${id}`,
      as: admin,
      site: 'main',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBeLessThan(300);
  });
});

describe('request headers', () => {
  it('keeps a well-formed X-Correlation-Id and replaces an oversized one with the request id', async () => {
    const write = (correlation: string, title: string) =>
      t.call({
        method: 'POST',
        url: '/api/v1/items/articles',
        as: admin,
        site: 'main',
        headers: { 'x-correlation-id': correlation, 'x-request-id': `req-${title}` },
        payload: { title },
      });
    await write('flow-run-12345', 'kept');
    await write('x'.repeat(8_192), 'replaced');
    const audit = await t.call({
      method: 'GET',
      url: '/api/v1/audit?type=ItemCreated&limit=200',
      as: admin,
      site: 'main',
    });
    const ids = (audit.json().data as { correlationId: string }[]).map((r) => r.correlationId);
    expect(ids).toContain('flow-run-12345');
    expect(ids).toContain('req-replaced');
    expect(ids.every((id) => id.length <= 128)).toBe(true);
  });
});

describe('over a real socket', () => {
  let port: number;
  let u: TestApp;
  beforeAll(async () => {
    u = await createTestApp({
      env: { SVC_REQUEST_TIMEOUT_MS: '1500', SVC_HEADERS_TIMEOUT_MS: '1000', SVC_MAX_HEADER_BYTES: '4096' },
    });
    await u.app.listen({ port: 0, host: '127.0.0.1' });
    port = (u.app.server.address() as net.AddressInfo).port;
  });
  afterAll(() => u.close());

  const raw = (send: (s: net.Socket) => void) =>
    new Promise<{ text: string; ms: number }>((resolve, reject) => {
      const started = Date.now();
      const s = net.connect(port, '127.0.0.1', () => send(s));
      let text = '';
      s.on('data', (d) => (text += d.toString()));
      s.on('close', () => resolve({ text, ms: Date.now() - started }));
      s.on('error', reject);
      s.setTimeout(20_000, () => s.destroy());
    });

  it('oversized headers answer 431 in the envelope', async () => {
    const { text } = await raw((s) =>
      s.write(`GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(8_000)}\r\n\r\n`),
    );
    expect(text).toMatch(/^HTTP\/1\.1 431/);
    const body = text.slice(text.indexOf('\r\n\r\n') + 4);
    expect(envelopeError(body).extensions.reason).toBe('headers_too_large');
  });

  it('a client trickling its body is cut off with 408 instead of holding the socket', async () => {
    let timer: NodeJS.Timeout | undefined;
    const { text, ms } = await raw((s) => {
      s.write(
        'POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
      );
      timer = setInterval(() => s.writable && s.write(' '), 200);
    });
    clearInterval(timer);
    expect(text).toMatch(/^HTTP\/1\.1 408/);
    expect(ms).toBeLessThan(15_000);
  });
});

describe('names every object inherits are ordinary unknown names', () => {
  it.each(['hasOwnProperty', 'valueOf', 'toString', 'isPrototypeOf'])(
    '%s as a field answers 400, never 500',
    async (name) => {
      for (const url of [
        `/api/v1/items/articles?filter[${name}][_eq]=1`,
        `/api/v1/items/articles?filter={"${name}":{"_eq":1}}`,
        `/api/v1/items/articles?sort=${name}`,
        `/api/v1/items/articles?fields=${name}`,
        `/api/v1/items/articles?groupBy=${name}&aggregate[count]=*`,
        `/api/v1/items/articles?aggregate[sum]=${name}`,
        `/api/v1/items/${name}`,
      ]) {
        const res = await t.call({ method: 'GET', url, as: admin, site: 'main' });
        expect(res.statusCode, url).toBeGreaterThanOrEqual(400);
        expect(res.statusCode, url).toBeLessThan(500);
      }
      const write = await t.call({
        method: 'POST',
        url: '/api/v1/items/articles',
        as: admin,
        site: 'main',
        payload: { [name]: 1 },
      });
      expect(write.statusCode).toBe(400);
      const id = await createArticle('t');
      const patch = await t.call({
        method: 'PATCH',
        url: `/api/v1/items/articles/${id}`,
        as: admin,
        site: 'main',
        payload: { [name]: 1 },
      });
      expect(patch.statusCode).toBe(400);
    },
  );

  it.each(['1e30', '9007199254740993', '-1', '1.5'])('offset or page %s answers 400', async (n) => {
    for (const p of ['offset', 'page']) {
      const res = await t.call({ method: 'GET', url: `/api/v1/items/articles?${p}=${n}`, as: admin, site: 'main' });
      expect(res.statusCode, `${p}=${n}`).toBe(400);
    }
  });
});

describe('schema names', () => {
  it('refuses collections and fields named after prototype members', async () => {
    const c = await t.call({
      method: 'POST',
      url: '/api/v1/collections',
      as: admin,
      site: 'main',
      payload: { name: 'constructor' },
    });
    expect(c.statusCode).toBe(400);
    const f = await t.call({
      method: 'POST',
      url: '/api/v1/fields/articles',
      as: admin,
      site: 'main',
      payload: { field: 'constructor', type: 'string' },
    });
    expect(f.statusCode).toBe(400);
  });
});
