import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { ManualClock } from '../../src/kernel/clock.ts';
import { codeAt } from '../../src/features/auth/tfa/totp.ts';
import type { TestApp } from '../setup/app.ts';
import { createUser } from '../setup/users.ts';
import { browserAvailable } from './browser.ts';
import {
  expectNoSeriousA11yViolations,
  nav,
  openStudio,
  shot,
  signIn,
  startStudio,
  type StudioRun,
} from './support/studio.ts';

const ADMIN_PATH = '/my-studio';
const TOTP_USER = { email: 'second-factor@example.com', password: 'Second-factor-2025!' };
const EDITOR = { email: 'editor@example.com', password: 'One-site-2025!' };
const TWO_SITES = { email: 'two-sites@example.com', password: 'Two-sites-2025!' };
const KEY = Buffer.alloc(32, 5).toString('base64');

/**
 * The built studio (studio/dist, built at install) in a real Chromium, served by the real service on the embedded
 * database at the admin path chosen at setup: sign-in without and with TOTP, a reload keeping the session through
 * the refresh cookie, sign-out ending it, the site picker and the navigation from the caller's permissions in each
 * site, and not one CSP violation.
 */
describe.runIf(browserAvailable())('the studio in a browser', () => {
  let run: StudioRun;
  let t: TestApp;
  let browser: Browser;
  let studio: string;
  let secret: string;
  let recoveryCodes: string[];
  const clock = new ManualClock(new Date());

  beforeAll(async () => {
    run = await startStudio(ADMIN_PATH, { env: { ENCRYPTION_KEY: KEY }, clock });
    ({ t, browser, studio } = run);
    const admin = run.admin;
    const ok = async (url: string, payload: object, as = admin) => {
      const res = await t.call({ method: 'POST', url, as, site: 'main', payload });
      expect(res.statusCode, `${url}: ${res.body}`).toBeLessThan(300);
      return res.json().data;
    };
    await ok('/api/v1/collections', { name: 'articles' });
    await ok('/api/v1/fields/articles', { field: 'title', type: 'string' });
    for (const title of ['First light', 'Second wind', 'Third time']) await ok('/api/v1/items/articles', { title });

    // A second site with a collection of its own, and a member of both sites.
    await ok('/api/v1/sites', { id: 'second', name: 'Second' });
    const inSecond = (url: string, payload: object) =>
      t.call({ method: 'POST', url, as: admin, site: 'second', payload }).then((r) => {
        expect(r.statusCode, `${url}: ${r.body}`).toBeLessThan(300);
      });
    await inSecond('/api/v1/collections', { name: 'notes' });
    await inSecond('/api/v1/fields/notes', { field: 'body', type: 'string' });
    await inSecond('/api/v1/items/notes', { body: 'Only in the second site' });
    await createUser(t, EDITOR.email, EDITOR.password, { main: 'editor' });
    await createUser(t, TWO_SITES.email, TWO_SITES.password, { main: 'editor', second: 'editor' });

    const token = await createUser(t, TOTP_USER.email, TOTP_USER.password, { main: 'editor' });
    secret = (await ok('/api/v1/me/tfa/setup', { password: TOTP_USER.password }, token)).secret;
    clock.advance(30_000);
    recoveryCodes = (await ok('/api/v1/me/tfa/confirm', { code: codeAt(secret, clock.now().getTime()) }, token))
      .recoveryCodes;
    clock.advance(30_000);
  });
  afterAll(() => run?.close());

  const open = () => openStudio(browser, studio);

  it('signs in without TOTP, keeps the session across a reload and ends it on sign-out', async () => {
    const { context, page, violations } = await open();
    const calls: { path: string; site?: string; bearer: boolean }[] = [];
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (url.pathname.startsWith('/api/v1/'))
        calls.push({ path: url.pathname, site: r.headers()['x-svc-site'], bearer: 'authorization' in r.headers() });
    });
    await page.getByRole('heading', { name: 'Sign in to the studio' }).waitFor();
    await expectNoSeriousA11yViolations(page, 'the sign-in screen');
    await shot(page, 'sign-in');
    await signIn(page, EDITOR);

    // One membership: straight into the site, with the navigation the permissions allow.
    await nav(page).getByRole('link', { name: 'articles' }).click();
    await page.getByRole('table', { name: 'Items of articles' }).getByText('Second wind').waitFor();
    expect(page.url()).toContain(`${ADMIN_PATH}/#/s/main/collections/articles`);
    expect(await page.getByText('3 items').isVisible()).toBe(true);
    // Mantine's run-time <style> (its CSS variables) carries the page's nonce, so the CSP lets it apply.
    expect(await page.locator('style[data-mantine-styles][nonce]').count()).toBeGreaterThan(0);

    // The access token lives in memory only: nothing of the session is in the page's storage.
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }));
    expect(stored).not.toMatch(/eyJ|refresh/i);

    // Every call past sign-in names the site and carries the token; the auth calls carry neither, and the inbox's
    // event stream (an EventSource sends no headers) carries its one-minute ticket instead.
    const stream = calls.filter((c) => c.path === '/api/v1/realtime');
    for (const c of stream) expect(c.bearer).toBe(false);
    const content = calls.filter((c) => !c.path.startsWith('/api/v1/auth/') && c.path !== '/api/v1/realtime');
    expect(content.map((c) => c.path)).toEqual(
      expect.arrayContaining(['/api/v1/permissions/me', '/api/v1/items/articles']),
    );
    for (const c of content) expect(c).toMatchObject({ site: 'main', bearer: true });
    for (const c of calls.filter((c) => /\/auth\/(login|refresh)$/.test(c.path))) expect(c.bearer).toBe(false);

    // A reload starts without a token and gets one through the refresh cookie: same screen, no sign-in form.
    await page.reload();
    await page.getByRole('table', { name: 'Items of articles' }).getByText('Third time').waitFor();
    expect(await page.getByRole('heading', { name: 'Sign in to the studio' }).count()).toBe(0);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to the studio' }).waitFor();
    // The refresh family is revoked: a reload stays signed out.
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to the studio' }).waitFor();
    expect(await page.getByRole('table').count()).toBe(0);

    expect(violations).toEqual([]);
    await context.close();
  });

  it('lets a member of two sites pick one, and shows each site its own collections', async () => {
    const { context, page, violations } = await open();
    await signIn(page, TWO_SITES);
    await page.getByRole('heading', { name: 'Choose a site' }).waitFor();
    await expectNoSeriousA11yViolations(page, 'the site picker');
    await page.getByRole('link', { name: /^second/ }).click();
    await nav(page).getByRole('link', { name: 'notes' }).click();
    await page.getByRole('table', { name: 'Items of notes' }).getByText('Only in the second site').waitFor();
    expect(await nav(page).getByRole('link', { name: 'articles' }).count()).toBe(0);

    await page.getByRole('textbox', { name: 'Site' }).click();
    await page.getByRole('option', { name: 'main' }).click();
    await nav(page).getByRole('link', { name: 'articles' }).waitFor();
    expect(await nav(page).getByRole('link', { name: 'notes' }).count()).toBe(0);
    expect(page.url()).toContain('#/s/main');
    expect(violations).toEqual([]);
    await context.close();
  });

  it('asks a TOTP-enrolled user for the code, then signs in', async () => {
    const { context, page, violations } = await open();
    await signIn(page, TOTP_USER);
    await page.getByRole('heading', { name: 'Two-factor authentication' }).waitFor();
    await expectNoSeriousA11yViolations(page, 'the TOTP screen');

    await page.getByLabel('Authentication code').fill('000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('alert').waitFor();

    await page.getByLabel('Authentication code').fill(codeAt(secret, clock.now().getTime()));
    await page.getByRole('button', { name: 'Verify' }).click();
    await nav(page).getByRole('link', { name: 'Collections' }).click();
    await page.getByRole('table', { name: 'Collections' }).getByRole('link', { name: 'articles' }).waitFor();
    expect(violations).toEqual([]);
    await context.close();
  });

  it('takes a recovery code instead of the TOTP code, all from the keyboard', async () => {
    const { context, page, violations } = await open();
    await page.getByRole('heading', { name: 'Sign in to the studio' }).waitFor();
    // The email field has the focus; Tab reaches the password, Enter submits.
    await page.keyboard.type(TOTP_USER.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(TOTP_USER.password);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Two-factor authentication' }).waitFor();
    // From the code field: Verify, then the switch to a recovery code.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Use a recovery code instead');
    await page.keyboard.press('Enter');
    await page.getByLabel('Recovery code').waitFor();
    await page.keyboard.type(recoveryCodes[0]!);
    await page.keyboard.press('Enter');
    await nav(page).getByRole('link', { name: 'articles' }).waitFor();
    expect(violations).toEqual([]);
    await context.close();
  });
});
