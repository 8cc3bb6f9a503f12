import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../setup/app.ts';
import { createUser } from '../setup/users.ts';
import { browserAvailable } from './browser.ts';
import {
  expectNoSeriousA11yViolations,
  openSignedIn,
  pick,
  shot,
  startStudio,
  type StudioRun,
} from './support/studio.ts';

const ADMIN_PATH = '/content-studio';
const EDITOR = { email: 'content-editor@example.com', password: 'Content-editor-2025!' };

/**
 * The studio's content screens in a real Chromium against the real service on the embedded database: an item
 * created through the form (a validation error first, at its field) with the editor as its revision's author; a
 * filter built, a sort chosen and the view saved as a bookmark preset; a save over another writer's change answered
 * by the conflict dialog with both versions. Not one CSP violation.
 */
describe.runIf(browserAvailable())('the studio content screens in a browser', () => {
  let run: StudioRun;
  let t: TestApp;
  let admin: string;
  let editorToken: string;
  let editorId: string;
  let authorId: string;

  const api = async (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object, as = admin) => {
    const res = await t.call({ method, url, as, site: 'main', payload });
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
    return res.json();
  };

  beforeAll(async () => {
    run = await startStudio(ADMIN_PATH);
    ({ t, admin } = run);
    await api('POST', '/api/v1/collections', { name: 'authors' });
    await api('POST', '/api/v1/fields/authors', { field: 'name', type: 'string' });
    authorId = (await api('POST', '/api/v1/items/authors', { name: 'Ada Lovelace' })).data.id;
    await api('POST', '/api/v1/collections', { name: 'articles' });
    await api('POST', '/api/v1/fields/articles', { field: 'title', type: 'string', required: true });
    await api('POST', '/api/v1/fields/articles', { field: 'views', type: 'integer' });
    await api('POST', '/api/v1/fields/articles', { field: 'kind', type: 'enum', choices: ['news', 'essay'] });
    await api('POST', '/api/v1/fields/articles', { field: 'author', type: 'string' });
    await api('POST', '/api/v1/relations', {
      kind: 'm2o',
      collection: 'articles',
      field: 'author',
      target: 'authors',
      onDelete: 'restrict',
    });
    for (const [title, views] of [
      ['Alpha', 1],
      ['Bravo', 5],
      ['Charlie', 9],
      ['Delta', 3],
    ] as const)
      await api('POST', '/api/v1/items/articles', { title, views });
    editorToken = await createUser(t, EDITOR.email, EDITOR.password, { main: 'editor' });
    editorId = (await api('GET', '/api/v1/auth/me', undefined, editorToken)).data.id;
  });
  afterAll(() => run?.close());

  /** A fresh profile signed in as the editor, on `hash`. */
  const open = (hash: string) => openSignedIn(run.browser, `${run.studio}#${hash}`, EDITOR);

  it('creates an item through the form (a field error first) and the editor is its revision author', async () => {
    const { context, page, violations } = await open('/s/main/collections/articles');
    await page.getByRole('link', { name: 'New item' }).click();
    await page.getByRole('heading', { name: 'New item in articles' }).waitFor();
    await page.getByRole('textbox', { name: 'title' }).fill('Echo from the form');
    await page.getByRole('textbox', { name: 'views' }).fill('many');
    await pick(page, page.getByRole('textbox', { name: 'kind' }), 'essay');
    const author = page.getByRole('textbox', { name: 'author' });
    await author.click();
    await author.fill('Ada');
    await page.getByRole('option', { name: /Ada Lovelace/ }).click();
    await page.getByRole('button', { name: 'Create' }).click();
    // The API's validation error appears at the field it names.
    const views = page.getByRole('textbox', { name: 'views' });
    await page.getByText('views must be a 32-bit integer').waitFor();
    expect(await views.getAttribute('aria-invalid')).toBe('true');

    await views.fill('7');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: /^articles: / }).waitFor();
    await expectNoSeriousA11yViolations(page, 'the item editor');
    await shot(page, 'item-editor');
    const id = decodeURIComponent(/\/items\/([^/?]+)$/.exec(page.url())![1]!);

    const item = (await api('GET', `/api/v1/items/articles/${id}`)).data;
    expect(item).toMatchObject({ title: 'Echo from the form', views: 7, kind: 'essay', author: authorId });
    const revisions = (await api('GET', `/api/v1/items/articles/${id}/revisions`)).data;
    expect(revisions).toHaveLength(1);
    expect(revisions[0].actor).toMatchObject({ type: 'user', id: editorId });
    expect(violations).toEqual([]);
    await context.close();
  });

  it('filters, sorts and saves the view as a bookmark preset', async () => {
    const { context, page, violations } = await open('/s/main/collections/articles');
    const table = page.getByRole('table', { name: 'Items of articles' });
    await table.getByText('Alpha').waitFor();

    await page.getByRole('button', { name: 'Add condition' }).click();
    const condition = page.getByRole('group', { name: 'Condition 1' });
    await pick(page, condition.getByRole('textbox', { name: 'Field' }), 'views');
    await pick(page, condition.getByRole('textbox', { name: 'Operator' }), '_gte');
    await condition.getByRole('textbox', { name: 'Value' }).fill('3');
    await page.getByRole('button', { name: 'Apply filter' }).click();
    // Bravo 5, Charlie 9, Delta 3 and the item the form created (7).
    await page.getByText('4 items').waitFor();
    await expectNoSeriousA11yViolations(page, 'the items table with its filter');
    await shot(page, 'items-table');
    expect(await table.getByText('Alpha').count()).toBe(0);

    // Sort by title: ascending, then descending.
    await page.getByRole('button', { name: 'Sort by title' }).click();
    await page.getByRole('button', { name: 'Sort by title' }).click();
    await expect
      .poll(async () =>
        (await table.locator('tbody tr').allInnerTexts()).map(
          (r) => /Bravo|Charlie|Delta|Echo from the form/.exec(r)?.[0],
        ),
      )
      .toEqual(['Echo from the form', 'Delta', 'Charlie', 'Bravo']);
    expect(await page.getByRole('columnheader', { name: /title/ }).getAttribute('aria-sort')).toBe('descending');

    await page.getByRole('button', { name: 'Save view' }).click();
    await page.getByRole('textbox', { name: 'Name of the view' }).fill('Popular');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('textbox', { name: 'Saved views' }).and(page.locator('[value^="Popular"]')).waitFor();

    const bookmarks = (await api('GET', '/api/v1/presets/bookmarks?collection=articles', undefined, editorToken)).data;
    expect(bookmarks).toHaveLength(1);
    expect(bookmarks[0]).toMatchObject({
      bookmark: 'Popular',
      userId: editorId,
      sourceScope: 'user',
      query: { filter: { views: { _gte: 3 } }, sort: ['-title'] },
    });

    // A raw JSON filter the API refuses is answered next to the box.
    await page.getByRole('textbox', { name: 'Filter as JSON' }).fill('{"views": {"_gte": "x"}, "nope": {"_eq": 1}}');
    await page.getByRole('button', { name: 'Apply JSON' }).click();
    await page.getByRole('textbox', { name: 'Filter as JSON' }).and(page.locator('[aria-invalid="true"]')).waitFor();
    expect(violations).toEqual([]);
    await context.close();
  });

  it('shows both versions when another writer moved the item, and keeps mine on request', async () => {
    const id = (await api('POST', '/api/v1/items/articles', { title: 'Foxtrot', views: 2 })).data.id as string;
    const { context, page, violations } = await open(`/s/main/collections/articles/items/${id}`);
    const title = page.getByRole('textbox', { name: 'title' });
    await expect.poll(() => title.inputValue()).toBe('Foxtrot');

    // Another writer saves first.
    await api('PATCH', `/api/v1/items/articles/${id}`, { title: 'Foxtrot (theirs)', views: 20 });

    await title.fill('Foxtrot (mine)');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Someone else changed this item' });
    await dialog.waitFor();
    const rows = await dialog
      .getByRole('table', { name: 'Your values and theirs' })
      .locator('tbody tr')
      .allInnerTexts();
    expect(rows.map((r) => r.split('\t').map((c) => c.trim()))).toEqual([
      ['title', 'Foxtrot (mine)', 'Foxtrot (theirs)'],
      ['views', '2', '20'],
    ]);
    await dialog.getByRole('button', { name: 'Keep mine' }).click();
    await page.getByText('Saved.').waitFor();

    // Mine for the field I changed, theirs for the one they changed.
    expect((await api('GET', `/api/v1/items/articles/${id}`)).data).toMatchObject({
      title: 'Foxtrot (mine)',
      views: 20,
    });
    await expect.poll(() => page.getByRole('textbox', { name: 'views' }).inputValue()).toBe('20');
    expect(violations).toEqual([]);
    await context.close();
  });
});
