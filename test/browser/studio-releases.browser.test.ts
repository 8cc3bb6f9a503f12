import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, type TestApp } from '../setup/app.ts';
import { browserAvailable } from './browser.ts';
import {
  cells,
  expectNoSeriousA11yViolations,
  nav,
  openSignedIn,
  pick,
  shot,
  startStudio,
  type StudioRun,
} from './support/studio.ts';

const ADMIN_PATH = '/studio-releases';

/**
 * The studio's releases and pages screens in a real Chromium against the real service on the embedded database:
 * a release composed from items (one pinned to an older revision, one that is deleted before the publish),
 * scheduled with a maintenance window, published, and its per-item outcomes with their reasons; a page created
 * with a layout the API refuses first (its errors at their paths), then delivered through its preview link; and
 * not one CSP violation.
 */
describe.runIf(browserAvailable())('the studio releases and pages screens in a browser', () => {
  let run: StudioRun;
  let t: TestApp;
  let admin: string;
  const ids = { pinned: '', gone: '', shown: '' };

  const api = async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) => {
    const res = await t.call({ method, url, as: admin, site: 'main', payload });
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
    return (res.statusCode === 204 ? { data: null } : res.json()) as {
      data: Record<string, unknown> & { id: string };
    };
  };

  beforeAll(async () => {
    run = await startStudio(ADMIN_PATH);
    ({ t, admin } = run);
    await api('POST', '/api/v1/collections', { name: 'posts' });
    await api('POST', '/api/v1/fields/posts', { field: 'title', type: 'string' });
    ids.pinned = (await api('POST', '/api/v1/items/posts', { title: 'First words' })).data.id;
    await api('PATCH', `/api/v1/items/posts/${ids.pinned}`, { title: 'Later words' });
    ids.gone = (await api('POST', '/api/v1/items/posts', { title: 'Soon gone' })).data.id;
    ids.shown = (await api('POST', '/api/v1/items/posts', { title: 'On the page', status: 'published' })).data.id;
  });
  afterAll(() => run?.close());

  const open = (hash: string) => openSignedIn(run.browser, `${run.studio}#${hash}`, ADMIN);

  it('composes a release (a pinned revision), schedules it in a window, publishes it and shows the outcomes', async () => {
    const { context, page, violations } = await open('/s/main');
    await nav(page).getByRole('link', { name: 'Releases' }).click();
    await page.getByText('No releases.').waitFor();
    await page.getByRole('textbox', { name: 'Name' }).fill('Spring launch');
    await pick(page, page.getByRole('textbox', { name: 'Atomicity' }), 'Best effort');
    await page.getByRole('button', { name: 'Create the release' }).click();
    await page.getByRole('heading', { name: 'Release Spring launch' }).waitFor();

    // The first item pinned to its first revision, the second at its live state.
    const add = page.getByRole('form', { name: 'Add an item' });
    await pick(page, add.getByRole('textbox', { name: 'Collection' }), 'posts');
    await pick(page, add.getByRole('textbox', { name: 'Item' }), `Later words (${ids.pinned})`);
    await pick(page, add.getByRole('textbox', { name: 'Revision' }), /^Revision 1: /);
    await add.getByRole('button', { name: 'Add the item' }).click();
    const items = page.getByRole('table', { name: 'Items of the release' });
    await items.getByText(ids.pinned).waitFor();
    await pick(page, add.getByRole('textbox', { name: 'Item' }), `Soon gone (${ids.gone})`);
    await add.getByRole('button', { name: 'Add the item' }).click();
    await items.getByText(ids.gone).waitFor();
    expect(await cells(items.getByRole('row').nth(2))).toEqual(['posts', ids.gone, 'published', 'live', '×']);

    // Scheduled a year ahead, only on Mondays 02:00–04:00 UTC.
    const next = new Date(Date.now() + 365 * 86_400_000);
    const schedule = page.getByRole('form', { name: 'Schedule' });
    await schedule.getByLabel('Publish at').fill(next.toISOString().slice(0, 16));
    await schedule.getByRole('button', { name: 'Add a window' }).click();
    await schedule.getByRole('textbox', { name: 'End of window 1 (HH:MM)' }).fill('4:00');
    await schedule.getByRole('button', { name: 'Save the schedule' }).click();
    await schedule.getByText('Check this window: a day and times HH:MM.').waitFor();
    await schedule.getByRole('textbox', { name: 'End of window 1 (HH:MM)' }).fill('04:00');
    await schedule.getByRole('button', { name: 'Save the schedule' }).click();
    await page.getByRole('status').filter({ hasText: 'Schedule saved.' }).waitFor();
    await page.getByTestId('release-status').filter({ hasText: 'scheduled' }).waitFor();
    const id = decodeURIComponent(/\/releases\/([^/?]+)$/.exec(page.url())![1]!);
    const stored = (await api('GET', `/api/v1/releases/${id}`)).data;
    expect(stored).toMatchObject({
      status: 'scheduled',
      atomicityMode: 'best_effort',
      publishAt: `${next.toISOString().slice(0, 16)}:00.000Z`,
      maintenanceWindow: { windows: [{ dow: 1, start: '02:00', end: '04:00' }] },
    });
    expect(stored.items).toEqual([
      expect.objectContaining({ collection: 'posts', itemId: ids.pinned, revisionId: expect.any(String) }),
      expect.objectContaining({ collection: 'posts', itemId: ids.gone }),
    ]);

    // One item is deleted meanwhile: it fails with its reason, the other is published with its pinned values.
    await api('DELETE', `/api/v1/items/posts/${ids.gone}`);
    await page.getByRole('button', { name: 'Publish now' }).click();
    const dialog = page.getByRole('dialog', { name: 'Publish Spring launch now?' });
    await dialog.getByRole('button', { name: 'Publish now' }).click();
    const outcomes = page.getByRole('table', { name: 'Outcomes per item' });
    await outcomes.waitFor();
    await page.getByRole('status').filter({ hasText: 'Published with status: partially failed' }).waitFor();
    expect(await cells(outcomes.getByRole('row').nth(1))).toEqual(['posts', ids.pinned, 'published', '']);
    expect(await cells(outcomes.getByRole('row').nth(2))).toEqual(['posts', ids.gone, 'failed', 'ITEM_DELETED']);
    expect(await page.getByRole('form', { name: 'Add an item' }).count()).toBe(0);
    await expectNoSeriousA11yViolations(page, 'a published release');
    await shot(page, 'release-outcomes');
    expect((await api('GET', `/api/v1/items/posts/${ids.pinned}`)).data).toMatchObject({
      status: 'published',
      title: 'First words',
    });

    // The list shows it with its status; after a reload the outcomes are still there.
    await page.reload();
    await page.getByRole('table', { name: 'Outcomes per item' }).getByText('ITEM_DELETED').waitFor();
    await page.getByRole('link', { name: '← Releases' }).click();
    const list = page.getByRole('table', { name: 'Releases' });
    // The list may show what it held before the publish for a moment, until its refetch answers.
    await expect
      .poll(() => cells(list.getByRole('row', { name: /Spring launch/ })))
      .toEqual([
        'Spring launch',
        'partially failed',
        'Best effort',
        new Date(stored.publishAt as string).toLocaleString('en-US', { timeZone: 'UTC' }),
        '2 items',
      ]);
    await expectNoSeriousA11yViolations(page, 'the releases list');
    expect(violations).toEqual([]);
    await context.close();
  });

  it('creates a page (layout errors at their paths first) and its preview link delivers it', async () => {
    const { context, page, violations } = await open('/s/main');
    await nav(page).getByRole('link', { name: 'Pages' }).click();
    await page.getByText('No pages.').waitFor();
    await page.getByRole('link', { name: 'New page' }).click();
    await page.getByRole('heading', { name: 'New page' }).waitFor();
    await page.getByRole('textbox', { name: /^Slug/ }).fill('news/spring');
    await page.getByRole('textbox', { name: /^Title/ }).fill('Spring news');
    const layout = page.getByRole('textbox', { name: 'Layout (JSON)' });
    await layout.fill('{"rows": [');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByText('This is not a JSON object.').waitFor();

    // Widths over 12 and a block of an unknown type: the API's errors, each at its path inside the layout.
    const bad = {
      rows: [{ columns: [{ width: 13, blocks: [{ type: 'text', text: 'Hello' }] }] }],
    };
    await layout.fill(JSON.stringify(bad));
    await page.getByRole('button', { name: 'Create' }).click();
    const errors = page.getByRole('list', { name: 'Problems in the layout' });
    await errors.waitFor();
    expect(await errors.locator('[data-path="rows.0.columns.0.width"]').count()).toBe(1);
    expect(await layout.getAttribute('aria-invalid')).toBe('true');

    const good = {
      rows: [
        {
          columns: [
            { width: 8, blocks: [{ type: 'text', text: 'Hello spring' }] },
            { width: 4, blocks: [{ type: 'item', collection: 'posts', itemId: ids.shown, fields: ['title'] }] },
          ],
        },
      ],
    };
    await layout.fill(JSON.stringify(good, null, 2));
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'Page Spring news' }).waitFor();
    expect(await page.getByRole('list', { name: 'Problems in the layout' }).count()).toBe(0);
    await expectNoSeriousA11yViolations(page, 'the page editor');

    const link = page.getByRole('link', { name: 'Preview the delivered page' });
    expect(await link.getAttribute('href')).toBe('/api/v1/deliver/page/main/news/spring');
    const [preview] = await Promise.all([context.waitForEvent('page'), link.click()]);
    await preview.waitForLoadState();
    const delivered = JSON.parse(await preview.locator('body').innerText()) as {
      data: { page: Record<string, unknown>; items: Record<string, unknown> };
    };
    expect(delivered.data.page).toMatchObject({ slug: 'news/spring', title: 'Spring news', layoutConfig: good });
    expect(delivered.data.items[`posts/${ids.shown}`]).toMatchObject({ title: 'On the page' });

    // The list has it; editing the title saves and the form shows the new version.
    await page.getByRole('link', { name: '← Pages' }).click();
    await page.getByRole('link', { name: 'Open page news/spring' }).click();
    await page.getByRole('textbox', { name: /^Title/ }).fill('Spring news, updated');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Page Spring news, updated' }).waitFor();
    const pages = (await api('GET', '/api/v1/pages')).data as unknown as { title: string }[];
    expect(pages.map((p) => p.title)).toEqual(['Spring news, updated']);
    expect(violations).toEqual([]);
    await context.close();
  });
});
