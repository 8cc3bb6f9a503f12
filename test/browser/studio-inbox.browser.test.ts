import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOTIFICATION_PRODUCER } from '../../src/features/notifications/notifications.producers.ts';
import { ADMIN, type TestApp } from '../setup/app.ts';
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

const ADMIN_PATH = '/studio-inbox';
const VIEWER = { email: 'viewer@example.com', password: 'Only-reading-2025!' };

/**
 * The inbox, a viewer's studio and a slow network, in a real Chromium against the real service: a notification
 * raised through the API (a release publish tells the site's admins) arrives over the realtime stream without a
 * reload, raises the navigation's badge and is marked handled; a viewer sees no write control and the API refuses
 * their writes; with the network throttled through the DevTools protocol the screens show a loader while they wait.
 */
describe.runIf(browserAvailable())('the studio inbox in a browser', () => {
  let run: StudioRun;
  let t: TestApp;
  let studio: string;
  let admin: string;
  let viewerToken: string;

  const ok = async (method: string, url: string, payload?: object, as = admin) => {
    const res = await t.call({ method: method as 'POST', url, as, site: 'main', payload });
    expect(res.statusCode, `${url}: ${res.body}`).toBeLessThan(300);
    return res.json().data;
  };

  beforeAll(async () => {
    run = await startStudio(ADMIN_PATH);
    ({ t, studio, admin } = run);
    await ok('POST', '/api/v1/collections', { name: 'articles' });
    await ok('POST', '/api/v1/fields/articles', { field: 'title', type: 'string' });
    await ok('POST', '/api/v1/items/articles', { id: 'a1', title: 'First light', status: 'draft' });
    viewerToken = await createUser(t, VIEWER.email, VIEWER.password, { main: 'viewer' });
  }, 60_000);
  afterAll(() => run?.close());

  const open = (hash = '') => openStudio(run.browser, studio + hash);

  it('shows a notification raised through the API live, with the badge, and marks it handled', async () => {
    const { context, page, violations } = await open('#/s/main/inbox');
    await signIn(page, ADMIN);
    await page.getByRole('heading', { name: 'Inbox' }).waitFor();
    await page.getByTestId('inbox-live').getByText('Live').waitFor();
    await page.getByText('No notifications.').waitFor();
    expect(await page.getByTestId('inbox-badge').count()).toBe(0);

    // A release publish tells the site's admins how it went: raised by the reactor, sent by the realtime relay.
    const release = await ok('POST', '/api/v1/releases', {
      name: 'Spring launch',
      addItems: [{ collection: 'articles', itemId: 'a1', targetStatus: 'published' }],
    });
    await ok('POST', `/api/v1/releases/${release.id}/publish`);
    await t.deps.drainReactors(NOTIFICATION_PRODUCER);
    await t.deps.realtime.relay.tick();

    const list = page.getByRole('list', { name: 'Notifications' });
    await list.getByText('“Spring launch” was published').waitFor();
    await nav(page).getByTestId('inbox-badge').getByText('1').waitFor();
    await expectNoSeriousA11yViolations(page, 'the inbox');
    await shot(page, 'inbox');
    // It came over the stream: the page was never reloaded (the sign-in form never came back).
    expect(await page.getByRole('heading', { name: 'Sign in to the studio' }).count()).toBe(0);

    await page.getByRole('button', { name: 'Mark handled: “Spring launch” was published' }).click();
    await list.getByText('handled', { exact: true }).waitFor();
    await page.getByTestId('inbox-badge').waitFor({ state: 'detached' });
    const inbox = await t.call({ method: 'GET', url: '/api/v1/notifications', as: admin, site: 'main' });
    const note = (inbox.json().data as { title: string; handled: boolean }[]).find((n) =>
      n.title.includes('Spring launch'),
    );
    expect(note?.handled).toBe(true);
    // No VAPID keys on this service: no subscribe button.
    expect(await page.getByRole('button', { name: 'Get browser notifications' }).count()).toBe(0);
    expect(violations).toEqual([]);
    await context.close();
  });

  it('shows a viewer no write control, and the API refuses their writes anyway', async () => {
    const { context, page, violations } = await open();
    await signIn(page, VIEWER);
    await nav(page).getByRole('link', { name: 'articles' }).click();
    await page.getByRole('table', { name: 'Items of articles' }).getByText('First light').waitFor();
    // Only reading: no admin screens in the navigation, no way to create.
    const links = await nav(page).getByRole('link').allTextContents();
    expect(links.filter((l) => /releases|settings|users|roles|flows|api keys/i.test(l))).toEqual([]);
    expect(await page.getByRole('button', { name: 'New item' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'New item' }).count()).toBe(0);

    await page.goto(`${studio}#/s/main/collections/articles/items/a1`);
    await page.getByLabel('title').waitFor();
    await page.getByLabel('title').and(page.locator('[disabled]')).waitFor();
    expect(await page.getByLabel('title').inputValue()).toBe('First light');
    await expectNoSeriousA11yViolations(page, "a viewer's item");
    for (const name of ['Save', 'Create', 'Duplicate', 'Delete'])
      expect(await page.getByRole('button', { name, exact: true }).count()).toBe(0);

    const write = await t.call({
      method: 'POST',
      url: '/api/v1/items/articles',
      as: viewerToken,
      site: 'main',
      payload: { title: 'Not allowed' },
    });
    expect(write.statusCode).toBe(403);
    const patch = await t.call({
      method: 'PATCH',
      url: '/api/v1/items/articles/a1',
      as: viewerToken,
      site: 'main',
      payload: { title: 'Not allowed' },
    });
    expect(patch.statusCode).toBe(403);
    expect(violations).toEqual([]);
    await context.close();
  });

  it('shows a loader on a throttled network instead of a frozen page', async () => {
    const { context, page, violations } = await open();
    await signIn(page, ADMIN);
    await nav(page).getByRole('link', { name: 'articles' }).waitFor();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    // Slow 3G-like: 1.5 s of latency on every request.
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 1500,
      downloadThroughput: 50_000,
      uploadThroughput: 50_000,
    });
    const started = Date.now();
    await nav(page).getByRole('link', { name: 'articles' }).click();
    // While the items are on their way: a labelled loader, no rows yet, and the frame still answers.
    await page.getByLabel('Loading…').first().waitFor();
    const rows = page.getByRole('table', { name: 'Items of articles' }).getByText('First light');
    expect(await rows.count()).toBe(0);
    expect(await nav(page).getByRole('link', { name: 'Inbox' }).isVisible()).toBe(true);
    await rows.waitFor({ timeout: 20_000 });
    // The rows came through the slow network, after the loader.
    expect(Date.now() - started).toBeGreaterThan(1_500);
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
    expect(violations).toEqual([]);
    await context.close();
  });
});
