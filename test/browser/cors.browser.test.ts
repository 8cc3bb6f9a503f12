import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ADMIN, createTestApp, type TestApp } from '../setup/app.ts';
import { browserAvailable, launchChromium, pageServer } from './browser.ts';

type Served = Awaited<ReturnType<typeof pageServer>>;
type Answer = { status?: number; body?: string; error?: string };
type Arrival = {
  method: string;
  url: string;
  origin?: string;
  cookie: boolean;
  refreshHeader: boolean;
  status: number;
};

/**
 * A real Chromium calls the service (a real listener on 127.0.0.1) from pages on other loopback ports: the
 * instance's credentialed origin, an origin of site A, one of site B, a publishable key's, and a stranger.
 */
describe.runIf(browserAvailable())('a browser calling the API from other origins', () => {
  let t: TestApp;
  let browser: Browser;
  let api: string;
  let admin: string;
  let pubKey: string;
  const pages: Record<'cred' | 'siteA' | 'siteB' | 'kiosk' | 'stranger', Served> = {} as never;
  const arrivals: Arrival[] = [];

  /** fetch() in a page of `origin`: the answer as the page reads it, or the error the browser gives it. */
  const fetchFrom = async (page: Page, path: string, init: RequestInit): Promise<Answer> =>
    page.evaluate(
      async ({ url, init }) => {
        try {
          const r = await fetch(url, init);
          return { status: r.status, body: await r.text() };
        } catch (e) {
          return { error: String(e) };
        }
      },
      { url: `${api}${path}`, init: init as Record<string, unknown> },
    );
  const open = async (context: BrowserContext, origin: string) => {
    const page = await context.newPage();
    await page.goto(`${origin}/`);
    return page;
  };
  const login = (page: Page, init: RequestInit = {}) =>
    fetchFrom(page, '/api/v1/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-site': 'br-a' },
      body: JSON.stringify(ADMIN),
      ...init,
    });

  beforeAll(async () => {
    for (const name of ['cred', 'siteA', 'siteB', 'kiosk', 'stranger'] as const) pages[name] = await pageServer();
    [t, browser] = await Promise.all([
      createTestApp({
        env: {
          SVC_CORS_ORIGINS: pages.cred.origin,
          SVC_CORS_CREDENTIALS: 'true',
          REFRESH_COOKIE_SAMESITE: 'none',
          REFRESH_COOKIE_SECURE: 'true',
        },
      }),
      launchChromium(),
    ]);
    admin = await t.setup();
    const ok = async (method: 'POST' | 'PATCH', url: string, payload: object, site = 'main') => {
      const res = await t.call({ method, url, as: admin, site, payload });
      expect(res.statusCode, `${url}: ${res.body}`).toBeLessThan(300);
      return res.json();
    };
    for (const [id, page] of [
      ['br-a', pages.siteA],
      ['br-b', pages.siteB],
    ] as const) {
      await ok('POST', '/api/v1/sites', { id, name: id });
      await ok('PATCH', '/api/v1/site', { settings: { cors: { origins: [page.origin] } } }, id);
    }
    await ok('POST', '/api/v1/collections', { name: 'articles' }, 'br-a');
    await ok('POST', '/api/v1/fields/articles', { field: 'title', type: 'string' }, 'br-a');
    const layoutConfig = { rows: [{ columns: [{ width: 12, blocks: [] }] }] };
    await ok('POST', '/api/v1/pages', { slug: 'home', title: 'Home', status: 'published', layoutConfig }, 'br-a');
    const key = { name: 'Kiosk', roleKey: 'viewer', publishable: true, allowedOrigins: [pages.kiosk.origin] };
    pubKey = (await ok('POST', '/api/v1/api-keys', key, 'br-a')).data.key;
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    api = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    t.app.server.on('request', (req, res) =>
      res.on('finish', () =>
        arrivals.push({
          method: req.method ?? '',
          url: req.url ?? '',
          origin: req.headers.origin,
          cookie: /svc_refresh=/.test(req.headers.cookie ?? ''),
          refreshHeader: req.headers['x-svc-refresh'] !== undefined,
          status: res.statusCode,
        }),
      ),
    );
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await Promise.all(Object.values(pages).map((p) => p.close()));
  });

  it("logs in, lists and creates with a bearer token from an origin of the site's own", async () => {
    const context = await browser.newContext();
    const page = await open(context, pages.siteA.origin);
    const session = await login(page);
    expect(session.status, session.body ?? session.error).toBe(200);
    const token = JSON.parse(session.body!).data.token as string;
    const headers = { authorization: `Bearer ${token}`, 'x-svc-site': 'br-a', 'content-type': 'application/json' };
    const created = await fetchFrom(page, '/api/v1/items/articles', {
      method: 'POST',
      headers,
      body: JSON.stringify({ title: 'From the browser' }),
    });
    expect(created.status, created.body ?? created.error).toBe(201);
    const list = await fetchFrom(page, '/api/v1/items/articles', { headers });
    expect(list.status).toBe(200);
    expect(JSON.parse(list.body!).data.map((i: { title: string }) => i.title)).toContain('From the browser');
    await context.close();
  });

  it('lists with a publishable key from its allowed origin', async () => {
    const context = await browser.newContext();
    const page = await open(context, pages.kiosk.origin);
    const res = await fetchFrom(page, '/api/v1/items/articles', {
      headers: { authorization: `Bearer ${pubKey}`, 'x-svc-site': 'br-a' },
    });
    expect(res.status, res.body ?? res.error).toBe(200);
    expect(Array.isArray(JSON.parse(res.body!).data)).toBe(true);
    const elsewhere = await open(context, pages.stranger.origin);
    const refused = await fetchFrom(elsewhere, '/api/v1/items/articles', {
      headers: { authorization: `Bearer ${pubKey}`, 'x-svc-site': 'br-a' },
    });
    expect(refused.error).toMatch(/Failed to fetch/);
    await context.close();
  });

  it('reads public delivery from any origin', async () => {
    const context = await browser.newContext();
    const page = await open(context, pages.stranger.origin);
    const res = await fetchFrom(page, '/api/v1/deliver/page/br-a/home', {});
    expect(res.status, res.body ?? res.error).toBe(200);
    expect(JSON.parse(res.body!).data.page).toMatchObject({ slug: 'home', title: 'Home' });
    await context.close();
  });

  it("keeps site A's answers from a page that only site B allows, even with a valid token", async () => {
    const context = await browser.newContext();
    const page = await open(context, pages.siteB.origin);
    const own = await login(page, { headers: { 'content-type': 'application/json', 'x-svc-site': 'br-b' } });
    expect(own.status).toBe(200);
    const token = JSON.parse(own.body!).data.token as string;
    const read = (site: string) =>
      fetchFrom(page, '/api/v1/site', { headers: { authorization: `Bearer ${token}`, 'x-svc-site': site } });
    expect((await read('br-b')).status).toBe(200);
    const before = arrivals.length;
    const stolen = await read('br-a');
    expect(stolen.error).toMatch(/Failed to fetch/);
    // The preflight was answered (site B allows the origin) and the request served, but the page cannot read it.
    expect(arrivals.slice(before).some((a) => a.method === 'GET' && a.url === '/api/v1/site' && a.status === 200)).toBe(
      true,
    );
    await context.close();
  });

  describe('the refresh cookie', () => {
    let context: BrowserContext;
    beforeAll(async () => {
      context = await browser.newContext();
    });
    afterAll(() => context.close());

    const refresh = (page: Page, headers: Record<string, string>) =>
      fetchFrom(page, '/api/v1/auth/refresh', { method: 'POST', credentials: 'include', headers });

    it('is set and rotated from the instance origin', async () => {
      const page = await open(context, pages.cred.origin);
      const session = await login(page, { credentials: 'include' });
      expect(session.status, session.body ?? session.error).toBe(200);
      const cookies = await context.cookies(`${api}/api/v1/auth/refresh`);
      expect(cookies.find((c) => c.name === 'svc_refresh')).toMatchObject({ secure: true, sameSite: 'None' });
      const rotated = await refresh(page, { 'x-svc-refresh': '1' });
      expect(rotated.status, rotated.body ?? rotated.error).toBe(200);
      expect(JSON.parse(rotated.body!).data.token).toEqual(expect.any(String));
    });

    it('is never sent for a page that only a site allows, and the service refuses what the browser does send', async () => {
      const page = await open(context, pages.siteB.origin);
      const before = arrivals.length;
      // With the CSRF header: a preflight, answered without Allow-Credentials, so the browser sends nothing.
      const guarded = await refresh(page, { 'x-svc-refresh': '1', 'x-svc-site': 'br-b' });
      expect(guarded.error).toMatch(/Failed to fetch/);
      // Without it (a "simple" request, no preflight): the browser sends the cookie, the service refuses it.
      const simple = await fetchFrom(page, '/api/v1/auth/refresh', { method: 'POST', credentials: 'include' });
      expect(simple.error).toMatch(/Failed to fetch/);
      const posts = arrivals.slice(before).filter((a) => a.method === 'POST' && a.url === '/api/v1/auth/refresh');
      expect(posts.filter((a) => a.refreshHeader)).toEqual([]);
      expect(posts.every((a) => a.status >= 400)).toBe(true);
      // The session was not rotated behind the owner's back: the instance origin still refreshes with its cookie.
      const owner = await open(context, pages.cred.origin);
      expect((await refresh(owner, { 'x-svc-refresh': '1' })).status).toBe(200);
    });
  });
});
