import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/kernel/clock.ts';
import { ADMIN, type TestApp } from '../setup/app.ts';
import { browserAvailable } from './browser.ts';
import {
  cells,
  expectNoSeriousA11yViolations,
  openSignedIn,
  shot,
  startStudio,
  type StudioRun,
} from './support/studio.ts';

const ADMIN_PATH = '/studio-history';
const HOUR = 3_600_000;

/** A moment as a `datetime-local` value in UTC (the browser runs in UTC below). */
const local = (at: Date) => at.toISOString().slice(0, 19);

/**
 * The studio's history screens in a real Chromium against the real service on the embedded database: an item's
 * revision timeline with its field diff and a revert (confirmed in a dialog, written as the signed-in admin), time
 * travel of an item and of a collection's list, named versions (create, edit the draft, compare with main, promote
 * with main diverged), the item's audit trail, and not one CSP violation.
 */
describe.runIf(browserAvailable())('the studio history screens in a browser', () => {
  let run: StudioRun;
  let t: TestApp;
  let studio: string;
  let admin: string;
  let adminId: string;
  // Writes are stamped by this clock: the items get a past of two hours.
  const start = new Date(Date.now() - 3 * HOUR);
  const clock = new ManualClock(start);
  const ids: Record<'reverted' | 'travelled' | 'versioned', string> = { reverted: '', travelled: '', versioned: '' };

  const api = async (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) => {
    const res = await t.call({ method, url, as: admin, site: 'main', payload });
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
    return res.json() as { data: Record<string, unknown> & { id: string }; meta?: Record<string, unknown> };
  };

  beforeAll(async () => {
    run = await startStudio(ADMIN_PATH, { clock });
    ({ t, studio, admin } = run);
    adminId = (await t.call({ method: 'GET', url: '/api/v1/auth/me', as: admin })).json().data.id as string;
    await api('POST', '/api/v1/collections', { name: 'articles', versioning: true });
    await api('POST', '/api/v1/fields/articles', { field: 'title', type: 'string' });
    await api('POST', '/api/v1/fields/articles', { field: 'body', type: 'string' });

    ids.reverted = (await api('POST', '/api/v1/items/articles', { title: 'Old title', body: 'kept' })).data.id;
    ids.travelled = (await api('POST', '/api/v1/items/articles', { title: 'Back then', body: 'x' })).data.id;
    ids.versioned = (await api('POST', '/api/v1/items/articles', { title: 'Main title', body: 'main body' })).data.id;
    clock.advance(HOUR);
    await api('PATCH', `/api/v1/items/articles/${ids.reverted}`, { title: 'New title' });
    await api('PATCH', `/api/v1/items/articles/${ids.travelled}`, { title: 'Right now' });
    clock.advance(HOUR);
  });
  afterAll(() => run?.close());

  /** A fresh profile (in UTC), signed in as the site's admin, at a studio address. */
  const open = (hash: string) => openSignedIn(run.browser, `${studio}#${hash}`, ADMIN);
  const itemAt = (id: string, tab: string) => `/s/main/items/articles/${id}?tab=${tab}`;

  it('shows the revision timeline with its field diff, reverts after a confirmation, and audits it', async () => {
    const { context, page, violations } = await open(itemAt(ids.reverted, 'history'));
    const second = page.getByRole('table', { name: 'Changes of revision 2' });
    await second.waitFor();
    // Only what the update changed, old → new; the first revision shows its values as added.
    expect(await second.getByRole('row').count()).toBe(2);
    expect(await cells(second.getByRole('row').nth(1))).toEqual(['title', 'Old title', 'New title']);
    const first = page.getByRole('table', { name: 'Changes of revision 1' });
    expect(await cells(first.getByRole('row', { name: /body/ }))).toEqual(['body', '—', 'kept']);
    // The newest revision is where the item is: nothing to revert to there.
    expect(await page.getByRole('button', { name: 'Revert to revision 2' }).count()).toBe(0);

    await page.getByRole('button', { name: 'Revert to revision 1' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revert to revision 1?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect((await api('GET', `/api/v1/items/articles/${ids.reverted}`)).data.title).toBe('New title');

    await page.getByRole('button', { name: 'Revert to revision 1' }).click();
    await dialog.getByRole('button', { name: 'Revert' }).click();
    await page.getByRole('status').filter({ hasText: 'Reverted to revision 1.' }).waitFor();
    const third = page.getByRole('table', { name: 'Changes of revision 3' });
    expect(await cells(third.getByRole('row', { name: /title/ }))).toEqual(['title', 'New title', 'Old title']);
    expect(await page.getByText('Revision 3: revert').count()).toBe(1);
    await expectNoSeriousA11yViolations(page, 'the revision history');
    await shot(page, 'revision-history');

    // The service has it, written by the one signed in.
    expect((await api('GET', `/api/v1/items/articles/${ids.reverted}`)).data.title).toBe('Old title');
    const revisions = await t.call({
      method: 'GET',
      url: `/api/v1/items/articles/${ids.reverted}/revisions?limit=1`,
      as: admin,
      site: 'main',
    });
    expect(revisions.json().data[0]).toMatchObject({ action: 'revert', actor: { type: 'user', id: adminId } });

    // The audit trail of the item: its events, newest first.
    await page.getByRole('tab', { name: 'Audit trail' }).click();
    const audit = page.getByRole('table', { name: 'Audit trail' });
    await audit.getByText('ItemReverted').waitFor();
    expect(await audit.getByRole('row').count()).toBe(4);
    expect(await audit.getByRole('row').nth(1).innerText()).toContain('ItemReverted');
    expect(await audit.getByRole('row').nth(3).innerText()).toContain('ItemCreated');
    expect(violations).toEqual([]);
    await context.close();
  });

  it('travels in time: an item and the collection list as of a moment show the old value', async () => {
    const { context, page, violations } = await open(itemAt(ids.travelled, 'values'));
    const values = page.getByRole('table', { name: 'Values' });
    await values.getByText('Right now').waitFor();

    await page.getByLabel('As of', { exact: true }).fill(local(new Date(start.getTime() + HOUR / 2)));
    await page.getByRole('status').filter({ hasText: 'Showing the values as of' }).waitFor();
    expect(await cells(values.getByRole('row', { name: /title/ }))).toEqual(['title', 'Back then']);

    // Before the item was created: the API's answer, where the values would be.
    await page.getByLabel('As of', { exact: true }).fill(local(new Date(start.getTime() - HOUR)));
    await page.getByRole('alert').waitFor();
    await page.getByRole('button', { name: 'Back to now' }).click();
    await values.getByText('Right now').waitFor();

    // The whole list as of a moment (its own view, the moment in the address).
    await page.goto(`${studio}#/s/main/collections/articles/as-of`);
    const list = page.getByRole('table', { name: 'Items of articles as of a moment' });
    await list.getByText('Right now').waitFor();
    await page.getByLabel('As of', { exact: true }).fill(local(new Date(start.getTime() + HOUR / 2)));
    await list.getByText('Back then').waitFor();
    expect(await list.getByText('Right now').count()).toBe(0);
    expect(await list.getByText('Old title').count()).toBe(1);
    expect(violations).toEqual([]);
    await context.close();
  });

  it('creates a named version, edits its draft, compares it with main and promotes it over a changed main', async () => {
    const { context, page, violations } = await open(itemAt(ids.versioned, 'versions'));
    await page.getByText('No named versions yet.').waitFor();
    // A key the API refuses: its message at the key field.
    await page.getByLabel(/^Key/).fill('bad key!');
    await page.getByLabel(/^Name/).fill('Spring edit');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByText(/keys are 1–64 letters/).waitFor();
    await page.getByLabel(/^Key/).fill('spring');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'Version Spring edit (spring)' }).waitFor();

    const draft = page.getByLabel('Draft values (JSON)');
    const values = JSON.parse(await draft.inputValue()) as Record<string, unknown>;
    expect(values.title).toBe('Main title');
    await draft.fill(JSON.stringify({ ...values, title: 'Draft title' }, null, 2));
    await page.getByRole('button', { name: 'Save the draft' }).click();
    await page.getByRole('status').filter({ hasText: 'Draft saved.' }).waitFor();

    // Side by side: the field that differs is marked, the rest not.
    const compare = page.getByRole('table', { name: 'Main and spring side by side' });
    const title = compare.getByRole('row', { name: /^title/ });
    await title.filter({ hasText: 'Draft title' }).waitFor();
    expect(await cells(title)).toEqual(['title differs', 'Main title', 'Draft title']);
    expect(await title.getAttribute('data-differs')).toBe('true');
    expect(await compare.getByRole('row', { name: /^body/ }).getAttribute('data-differs')).toBe('false');
    await expectNoSeriousA11yViolations(page, 'the versions compared');
    await shot(page, 'versions-compare');
    expect((await api('GET', `/api/v1/items/articles/${ids.versioned}`)).data.title).toBe('Main title');

    // Main moves on: the version says so, and the promote tells that main had diverged.
    await api('PATCH', `/api/v1/items/articles/${ids.versioned}`, { body: 'changed on main' });
    await page.reload();
    await page.getByRole('table', { name: 'Named versions' }).getByText('main changed since').waitFor();
    await page.getByRole('button', { name: 'Open spring' }).click();
    await page.getByRole('alert').filter({ hasText: 'Main has changed since this version was taken' }).waitFor();
    await page.getByRole('button', { name: 'Promote to main' }).click();
    const dialog = page.getByRole('dialog', { name: 'Promote spring to main?' });
    await dialog.getByRole('button', { name: 'Promote to main' }).click();
    await page.getByRole('alert').filter({ hasText: 'Promoted spring to main. Main had changed' }).waitFor();

    const item = (await api('GET', `/api/v1/items/articles/${ids.versioned}`)).data;
    expect(item).toMatchObject({ title: 'Draft title', body: 'main body' });
    await page.getByRole('tab', { name: 'History' }).click();
    await page.getByText('Revision 3: promote').waitFor();
    expect(violations).toEqual([]);
    await context.close();
  });
});
