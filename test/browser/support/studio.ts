import { expect } from 'vitest';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import type Axe from 'axe-core';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import type { Clock } from '../../../src/kernel/clock.ts';
import { ADMIN, createTestApp, type TestApp } from '../../setup/app.ts';
import { launchChromium } from '../browser.ts';

/** An account's sign-in. */
export interface Credentials {
  email: string;
  password: string;
}

/** The service listening with its studio at an admin path, and one Chromium for the test file. */
export interface StudioRun {
  t: TestApp;
  browser: Browser;
  /** The studio's address, `http://127.0.0.1:<port><adminPath>/`. */
  studio: string;
  /** The token of the site's admin, from setup. */
  admin: string;
  close(): Promise<void>;
}

/**
 * The built studio (studio/dist, built at install) served by the real service on the embedded database, set up
 * with the site `main` and its admin (`ADMIN`) at `adminPath`, listening on a loopback port; Chromium starts
 * meanwhile.
 */
export async function startStudio(
  adminPath: string,
  opts: { env?: Record<string, string>; clock?: Clock } = {},
): Promise<StudioRun> {
  if (!existsSync('studio/dist/index.html'))
    throw new Error('studio/dist is not built: run node scripts/build-studio.mjs');
  const [t, browser] = await Promise.all([createTestApp(opts), launchChromium()]);
  const setup = await t.call({
    method: 'POST',
    url: '/api/v1/setup/complete',
    payload: { siteId: 'main', siteName: 'Main', adminPath, ...ADMIN },
  });
  expect(setup.statusCode, setup.body).toBe(201);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return {
    t,
    browser,
    studio: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}${adminPath}/`,
    admin: setup.json().data.token as string,
    close: async () => {
      await browser.close();
      await t.close();
    },
  };
}

/** A fresh browser profile and its page. */
export interface StudioPage {
  context: BrowserContext;
  page: Page;
  /** What the console reported about the CSP, and the page's uncaught errors. */
  violations: string[];
}

const VIEWPORT = { width: 1280, height: 800 };

/** A fresh profile (in UTC, 1280×800) at `url`, collecting CSP reports and page errors. */
export async function openStudio(browser: Browser, url: string): Promise<StudioPage> {
  const context = await browser.newContext({ timezoneId: 'UTC', viewport: VIEWPORT });
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  page.on('pageerror', (e) => violations.push(`page error: ${e.message}`));
  await page.goto(url);
  return { context, page, violations };
}

/** Fills the sign-in form and sends it. */
export async function signIn(page: Page, who: Credentials): Promise<void> {
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel(/^Password/).fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** A fresh profile at a studio address, signed in. */
export async function openSignedIn(browser: Browser, url: string, who: Credentials): Promise<StudioPage> {
  const opened = await openStudio(browser, url);
  await signIn(opened.page, who);
  return opened;
}

/** The studio's main navigation. */
export const nav = (page: Page): Locator => page.getByRole('navigation', { name: 'Main navigation' });

/** Opens a combobox and picks one of its options. */
export async function pick(page: Page, input: Locator, option: string | RegExp): Promise<void> {
  await input.click();
  await page.getByRole('option', { name: option }).click();
}

/** The texts of a row's cells, once the row has its first. */
export async function cells(row: Locator): Promise<string[]> {
  await row.locator('th, td').first().waitFor();
  return row.locator('th, td').allTextContents();
}

const require = createRequire(import.meta.url);
let axeSource: string | undefined;

/**
 * Fails when axe-core finds a serious or critical violation on the page as it is now, listing each (rule, help,
 * the nodes it names). The shell's CSP refuses an inline <script> without its nonce (`page.addScriptTag` fails and
 * the refusal is reported), so axe's source is evaluated through the DevTools protocol, which the CSP does not
 * govern: the product's CSP stays as strict as it is and reports nothing about the check.
 */
export async function expectNoSeriousA11yViolations(page: Page, label: string): Promise<void> {
  // A dialog closing or a notice sliding in is half transparent until its transition ends: judge the page at rest.
  // (A spinner's endless animation is no transition and is not waited for.)
  await page.waitForFunction(
    () =>
      document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getTiming().iterations === Infinity),
    undefined,
    { timeout: 5000 },
  );
  axeSource ??= readFileSync(join(dirname(require.resolve('axe-core')), 'axe.min.js'), 'utf8');
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(`${axeSource}\n;void 0`);
  const violations = await page.evaluate(async () => {
    const { axe } = window as unknown as { axe: typeof Axe };
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target })),
    }));
  });
  const serious = violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(serious, `accessibility of ${label}`).toEqual([]);
}

const SCREENSHOTS = 'docs/studio';

/** With STUDIO_SCREENSHOTS=1, the page as it is now in docs/studio/<name>.png (1280×800); otherwise nothing. */
export async function shot(page: Page, name: string): Promise<void> {
  if (process.env.STUDIO_SCREENSHOTS !== '1') return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), animations: 'disabled', caret: 'hide' });
}
