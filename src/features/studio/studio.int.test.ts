import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { siteEvents } from '../../../projections/event-log/index.ts';
import { asSystem } from '../../kernel/tenancy/site.ts';
import { ADMIN, createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';

const ORIGIN = 'https://somewhere.example';
const SCRIPT = 'console.log("studio")';
const INDEX = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Studio</title>
<script type="module" crossorigin src="./assets/index-3f2a9c.js"></script>
<link rel="stylesheet" crossorigin href="./assets/index-77ab01.css">
<link rel="icon" href="./assets/favicon-1a2b3c.svg">
<style>body{margin:0}</style>
</head>
<body><div id="root"></div><script nonce="stale">window.x=1</script></body>
</html>
`;

/** What may differ between two answers that must be indistinguishable: their date and request id. */
const comparable = (res: LightMyRequestResponse) => ({
  status: res.statusCode,
  body: res.rawPayload.toString('base64'),
  headers: Object.fromEntries(
    Object.entries(res.headers)
      .filter(([k]) => k !== 'date' && k !== 'x-request-id')
      .sort(([a], [b]) => a.localeCompare(b)),
  ),
});

let t: TestApp;
let dir: string;
/** A browser's GET: HTML accepted, compression offered, from another origin (CORS and compression both see it). */
const get = (url: string, headers: Record<string, string> = {}) =>
  t.call({
    method: 'GET',
    url,
    headers: { accept: 'text/html,*/*;q=0.8', 'accept-encoding': 'gzip, br', origin: ORIGIN, ...headers },
  });
/** The reference 404: a method no route has on a path nobody serves goes straight to the not-found handler. */
const reference = () =>
  t.call({ method: 'DELETE', url: '/no/such/thing', headers: { 'accept-encoding': 'gzip, br', origin: ORIGIN } });

/** Every one of these answers exactly as the reference 404 does, apart from date and request id. */
async function expectGeneric404(urls: string[], headers: Record<string, string> = {}) {
  const ref = comparable(await reference());
  expect(ref.status).toBe(404);
  for (const url of urls) expect(comparable(await get(url, headers)), url).toEqual(ref);
}

const patch = (token: string, payload: Record<string, unknown>) =>
  t.call({ method: 'PATCH', url: '/api/v1/admin/instance', as: token, payload });

const adminToken = async () =>
  (await t.call({ method: 'POST', url: '/api/v1/auth/login', payload: ADMIN })).json().data.token as string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-studio-'));
  await mkdir(join(dir, 'assets'));
  await writeFile(join(dir, 'index.html'), INDEX);
  await writeFile(join(dir, 'assets', 'index-3f2a9c.js'), SCRIPT);
  await writeFile(join(dir, 'assets', '.hidden.js'), SCRIPT);
  await writeFile(join(dir, 'secret.txt'), 'not an asset');
  t = await createTestApp({ env: { SVC_STUDIO_DIR: dir } });
});
afterAll(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

const STRANGERS = ['/', '/admin', '/admin/', '/studio', '/studio/', '/no-such-route', '/api/v1/no-such-route'];

describe('the studio', () => {
  it('before setup: every path, the future admin path too, is the one generic 404', async () => {
    await expectGeneric404([...STRANGERS, '/my-studio', '/my-studio/', '/my-studio/assets/index-3f2a9c.js']);
    const res = await get('/admin');
    expect(res.json()).toEqual({ errors: [{ code: 'NOT_FOUND', message: 'not found', path: [], extensions: {} }] });
    const setup = await t.call({
      method: 'POST',
      url: '/api/v1/setup/complete',
      payload: { siteId: 'studio', siteName: 'Studio', ...ADMIN, adminPath: '/my-studio' },
    });
    expect(setup.statusCode).toBe(201);
  });

  describe('GET <adminPath>/*', () => {
    it('redirects the bare admin path to the shell', async () => {
      const res = await get('/my-studio?x=1');
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe('/my-studio/');
      expect(res.headers['cache-control']).toBe('no-store');
    });

    it('serves the shell with its headers, a base under the admin path and one fresh nonce per request', async () => {
      const nonces = new Set<string>();
      for (const url of ['/my-studio/', '/my-studio/items/articles/42', '/my-studio/index.html']) {
        const res = await get(url);
        expect(res.statusCode, url).toBe(200);
        expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(res.headers['cache-control']).toBe('no-store');
        expect(res.headers['referrer-policy']).toBe('no-referrer');
        expect(res.headers['x-robots-tag']).toBe('noindex');
        expect(res.headers['x-frame-options']).toBe('DENY');
        const csp = String(res.headers['content-security-policy']);
        const nonce = /script-src 'self' 'nonce-([^']+)'/.exec(csp)?.[1];
        expect(nonce).toBeTruthy();
        expect(csp).toBe(
          `default-src 'self'; script-src 'self' 'nonce-${nonce}'; style-src 'self' 'nonce-${nonce}'; ` +
            `connect-src 'self'; img-src 'self' data: blob:; frame-ancestors 'none'; base-uri 'self'`,
        );
        expect(csp).not.toContain('unsafe-inline');
        const html = res.body;
        expect(html).toMatch(/<head>\s*<base href="\/my-studio\/">/);
        // Every script, style and stylesheet carries the request's nonce, and no other.
        const tags = html.match(/<(?:script|style)\b[^>]*>|<link\b[^>]*rel="stylesheet"[^>]*>/g)!;
        expect(tags).toHaveLength(4);
        for (const tag of tags) expect(tag, tag).toContain(` nonce="${nonce}"`);
        expect(html).not.toContain('stale');
        expect(html).toContain('<link rel="icon" href="./assets/favicon-1a2b3c.svg">');
        nonces.add(nonce!);
      }
      expect(nonces.size).toBe(3);
    });

    it('serves hashed assets as immutable, and a missing or hostile asset name is the generic 404', async () => {
      const res = await get('/my-studio/assets/index-3f2a9c.js', { accept: '*/*' });
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe(SCRIPT);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.headers['content-type']).toMatch(/^(?:text|application)\/javascript/);
      await expectGeneric404([
        '/my-studio/assets/index-000000.js',
        '/my-studio/assets/',
        '/my-studio/assets/.hidden.js',
        '/my-studio/assets/..%2fsecret.txt',
        '/my-studio/assets//index-3f2a9c.js',
        `/my-studio/assets/${'a'.repeat(10_000)}.js`,
      ]);
      // A client resolves `..` before sending (so the path is the shell's); nothing outside assets/ is ever sent.
      for (const url of ['/my-studio/assets/../secret.txt', '/my-studio/assets/%2e%2e/secret.txt'])
        expect((await get(url, { accept: '*/*' })).body, url).not.toContain('not an asset');
    });

    it('answers /, /admin, /studio, look-alikes of the admin path and non-HTML asks with the generic 404', async () => {
      await expectGeneric404([
        ...STRANGERS,
        '/My-Studio/',
        '/my%2Dstudio/',
        '/my-studio2/',
        '//my-studio/',
        '/my-studio.html',
      ]);
      await expectGeneric404(['/my-studio/items'], { accept: 'application/json' });
      // Whoever asks: a bearer nobody issued changes nothing on a path nobody serves.
      await expectGeneric404(['/admin', '/my-studio/assets/none.js'], { authorization: 'Bearer not-a-token' });
    });
  });

  describe('PATCH /api/v1/admin/instance', () => {
    it("is for instance administrators only: a site admin or another site's admin gets 403", async () => {
      const siteAdmin = await createUser(t, 'site-admin@example.com', ADMIN.password, { studio: 'admin' });
      const otherAdmin = await createUser(t, 'other-admin@example.com', ADMIN.password, { elsewhere: 'admin' });
      for (const token of [siteAdmin, otherAdmin]) {
        const res = await patch(token, { adminPath: '/taken-over', password: ADMIN.password });
        expect(res.statusCode).toBe(403);
        expect(res.json().errors[0].code).toBe('PERMISSION_DENIED');
        const read = await t.call({ method: 'GET', url: '/api/v1/admin/instance', as: token });
        expect(read.statusCode).toBe(403);
      }
      expect((await patch('', { adminPath: '/x-path' })).statusCode).toBe(401);
      expect((await get('/my-studio/')).statusCode).toBe(200);
    });

    it('needs the password (step-up) and refuses every path setup would refuse', async () => {
      const token = await adminToken();
      const wrong = await patch(token, { adminPath: '/new-studio', password: 'not-the-password-1!' });
      expect(wrong.statusCode).toBe(401);
      expect(wrong.json().errors[0]).toMatchObject({ code: 'UNAUTHENTICATED', path: ['password'] });
      expect((await patch(token, { adminPath: '/new-studio' })).statusCode).toBe(400);
      const hostile = [
        '/admin',
        '/studio',
        '/api',
        '/setup',
        '/scim',
        '/graphql',
        '/mcp',
        '/health',
        '/metrics',
        '/ab',
        'no-slash',
        '/a/../b',
        '/../etc',
        '//evil.example',
        '/my%2dstudio',
        '/My-Studio',
        '/my studio',
        '/-leading',
        '/new-studio/',
        '/new\u0000studio',
        '',
      ];
      for (const adminPath of hostile) {
        const res = await patch(token, { adminPath, password: ADMIN.password });
        expect(res.statusCode, adminPath).toBe(400);
        const error = res.json().errors[0];
        expect(error.code, adminPath).toBe('VALIDATION_FAILED');
        // The rule's refusal names the field; a NUL is refused at the edge, in the body.
        expect(error.path, adminPath).toEqual(adminPath.includes('\u0000') ? ['body', 'adminPath'] : ['adminPath']);
      }
      const long = await patch(token, { adminPath: `/${'a'.repeat(10_000)}`, password: ADMIN.password });
      expect(long.statusCode).toBe(400);
      expect(long.json().errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'adminPath'] });
      const extra = await t.call({
        method: 'PATCH',
        url: '/api/v1/admin/instance',
        as: token,
        headers: { 'content-type': 'application/json' },
        payload: `{"adminPath":"/new-studio","password":${JSON.stringify(ADMIN.password)},"__proto__":{"x":1}}`,
      });
      expect(extra.statusCode).toBe(400);
      expect((await get('/my-studio/')).statusCode).toBe(200);
    });

    it('moves the studio: the old path is the generic 404 at once, the new one serves, the change is in the log', async () => {
      const token = await adminToken();
      const res = await patch(token, { adminPath: '/new-studio', password: ADMIN.password });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ data: { adminPath: '/new-studio' } });
      await expectGeneric404(['/my-studio', '/my-studio/', '/my-studio/assets/index-3f2a9c.js']);
      expect((await get('/new-studio/')).body).toContain('<base href="/new-studio/">');
      expect((await get('/new-studio/assets/index-3f2a9c.js')).statusCode).toBe(200);
      const read = await t.call({ method: 'GET', url: '/api/v1/admin/instance', as: token });
      expect(read.json()).toEqual({ data: { adminPath: '/new-studio' } });

      const entries = await asSystem(t.deps.db, (db) =>
        siteEvents(db, '_system', { type: 'AdminPathChanged', limit: 10 }),
      );
      expect(entries).toHaveLength(1);
      expect(entries[0]!.data).toMatchObject({ from: '/my-studio', to: '/new-studio' });
      const me = (await t.call({ method: 'GET', url: '/api/v1/auth/me', as: token })).json().data;
      expect(entries[0]!.metadata.actor).toMatchObject({ type: 'user', id: me.id });

      // The same path again records nothing; the path survives a restart (read from the instance read model).
      expect((await patch(token, { adminPath: '/new-studio', password: ADMIN.password })).statusCode).toBe(200);
      await t.restart({ SVC_STUDIO_DIR: dir });
      expect((await get('/new-studio/')).statusCode).toBe(200);
      await expectGeneric404(['/my-studio/']);
      const after = await asSystem(t.deps.db, (db) =>
        siteEvents(db, '_system', { type: 'AdminPathChanged', limit: 10 }),
      );
      expect(after).toHaveLength(1);
    });
  });
});

describe('the studio before it is built', () => {
  it('serves a page that says how to build it, with the shell headers', async () => {
    const app = await createTestApp({ env: { SVC_STUDIO_DIR: join(tmpdir(), 'svc-studio-never-built') } });
    try {
      await app.call({
        method: 'POST',
        url: '/api/v1/setup/complete',
        payload: { siteId: 'fresh', siteName: 'Fresh', ...ADMIN, adminPath: '/fresh-studio' },
      });
      const res = await app.call({ method: 'GET', url: '/fresh-studio/', headers: { accept: 'text/html' } });
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('The studio is not built');
      expect(res.body).toContain('<base href="/fresh-studio/">');
      const nonce = /'nonce-([^']+)'/.exec(String(res.headers['content-security-policy']))?.[1];
      expect(res.body).toContain(`<style nonce="${nonce}">`);
      expect(res.headers).toMatchObject({
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
        'x-robots-tag': 'noindex',
        'x-frame-options': 'DENY',
      });
      expect((await app.call({ method: 'GET', url: '/fresh-studio/assets/index.js' })).statusCode).toBe(404);
    } finally {
      await app.close();
    }
  });
});
