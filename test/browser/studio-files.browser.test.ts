import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { ADMIN, type TestApp } from '../setup/app.ts';
import { browserAvailable } from './browser.ts';
import { expectNoSeriousA11yViolations, openSignedIn, startStudio, type StudioRun } from './support/studio.ts';

const ADMIN_PATH = '/studio-files';

/**
 * File fields in the studio's item editor, in a real Chromium against the real service on the embedded database:
 * an image uploaded through the field's file input, its preview loaded through a transform from a blob: address
 * (the asset needs the session's token), the item saved with the file's id and the file removed again; then
 * uploads the site refuses (over its cap, bytes that are not their declared type) answered next to the control;
 * and not one CSP violation.
 */
describe.runIf(browserAvailable())('the studio file fields in a browser', () => {
  let run: StudioRun;
  let t: TestApp;
  let admin: string;
  let dir: string;
  const files = { red: '', noise: '', fake: '' };

  const api = async (method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, payload?: object) => {
    const res = await t.call({ method, url, as: admin, site: 'main', payload });
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
    return res.json() as { data: Record<string, unknown> & { id: string } };
  };

  const fileCount = async () => ((await api('GET', '/api/v1/files')).data as unknown as unknown[]).length;

  beforeAll(async () => {
    run = await startStudio(ADMIN_PATH);
    ({ t, admin } = run);
    await api('POST', '/api/v1/collections', { name: 'posts' });
    await api('POST', '/api/v1/fields/posts', { field: 'title', type: 'string' });
    await api('POST', '/api/v1/fields/posts', { field: 'cover', type: 'string', interface: 'image' });
    await api('POST', '/api/v1/relations', { kind: 'm2o', collection: 'posts', field: 'cover', target: 'files' });

    dir = await mkdtemp(join(tmpdir(), 'studio-files-'));
    files.red = join(dir, 'red.png');
    await sharp({ create: { width: 400, height: 300, channels: 3, background: '#ff0000' } })
      .png()
      .toFile(files.red);
    // Noise does not compress: some 30 KB of PNG, over the cap the last test sets.
    files.noise = join(dir, 'noise.png');
    await sharp(randomBytes(100 * 100 * 3), { raw: { width: 100, height: 100, channels: 3 } })
      .png()
      .toFile(files.noise);
    files.fake = join(dir, 'notes.png');
    await writeFile(files.fake, 'not an image at all\n');
  });
  afterAll(async () => {
    await run?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** A fresh browser profile signed in as the admin, on `hash`, collecting CSP reports and page errors. */
  const open = (hash: string) => openSignedIn(run.browser, `${run.studio}#${hash}`, ADMIN);

  it('uploads an image, previews it transformed, saves its id in the item, and removes it again', async () => {
    const post = (await api('POST', '/api/v1/items/posts', { title: 'Red square' })).data.id;
    const { context, page, violations } = await open(`/s/main/collections/posts/items/${post}`);
    await page.getByRole('heading', { name: `posts: ${post}` }).waitFor();
    const cover = page.getByLabel('cover', { exact: true });
    await page.getByText('No file.').waitFor();
    expect(await cover.getAttribute('type')).toBe('file');

    await cover.setInputFiles(files.red);
    // The preview: the asset transformed to fit 160 × 160, loaded from a blob: address.
    const preview = page.getByRole('img', { name: 'red.png' });
    await preview.waitFor();
    await expect
      .poll(() => preview.evaluate((img: HTMLImageElement) => [img.complete, img.naturalWidth, img.naturalHeight]))
      .toEqual([true, 160, 120]);
    expect(await preview.getAttribute('src')).toMatch(/^blob:/);
    await page
      .getByTestId('file-summary')
      .filter({ hasText: /^red\.png · image\/png · .+ · 400 × 300$/ })
      .waitFor();

    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved.').waitFor();
    const saved = (await api('GET', `/api/v1/items/posts/${post}`)).data;
    expect(saved.cover).toEqual(expect.any(String));
    const file = (await api('GET', `/api/v1/files/${saved.cover as string}`)).data;
    expect(file).toMatchObject({ id: saved.cover, filename: 'red.png', type: 'image/png', width: 400, height: 300 });

    // After a reload the saved file is shown again; removing it clears the field.
    await page.reload();
    await preview.waitFor();
    await page.getByRole('button', { name: 'Remove file' }).click();
    await page.getByText('No file.').waitFor();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved.').waitFor();
    expect((await api('GET', `/api/v1/items/posts/${post}`)).data.cover).toBeNull();
    // The file record stays: only the reference went.
    await api('GET', `/api/v1/files/${file.id}`);
    expect(violations).toEqual([]);
    await context.close();
  });

  it("shows the API's refusal of an upload next to the control and keeps the field as it was", async () => {
    await api('PUT', '/api/v1/uploads/config', { maxBytes: 8000 });
    try {
      const before = await fileCount();
      const { context, page, violations } = await open('/s/main/collections/posts/new');
      await page.getByRole('heading', { name: 'New item in posts' }).waitFor();
      const cover = page.getByLabel('cover', { exact: true });
      await page.getByText('Uploads up to 7.8 KB.').waitFor();

      await cover.setInputFiles(files.noise);
      const refusal = page.getByRole('alert').filter({ hasText: 'Upload refused:' });
      await refusal.waitFor();
      expect(await refusal.textContent()).toBe(
        'Upload refused: the upload exceeds the limit of 8000 bytes (UPLOAD_TOO_LARGE)',
      );
      expect(await cover.getAttribute('aria-invalid')).toBe('true');
      expect(await cover.getAttribute('aria-describedby')).toContain(await refusal.locator('..').getAttribute('id'));
      await page.getByText('No file.').waitFor();

      await expectNoSeriousA11yViolations(page, 'item editor, a refused upload');

      await cover.setInputFiles(files.fake);
      await refusal.filter({ hasText: 'UPLOAD_TYPE_MISMATCH' }).waitFor();
      await page.getByText('No file.').waitFor();

      // A file the site takes clears the refusal.
      await cover.setInputFiles(files.red);
      await page.getByRole('img', { name: 'red.png' }).waitFor();
      expect(await refusal.count()).toBe(0);
      expect(await cover.getAttribute('aria-invalid')).toBeNull();
      await expectNoSeriousA11yViolations(page, 'item editor, a file with its preview');
      expect(await fileCount()).toBe(before + 1);
      await page.getByRole('textbox', { name: 'title' }).fill('Created with a cover');
      await page.getByRole('button', { name: 'Create' }).click();
      await page.getByRole('heading', { name: /^posts: / }).waitFor();
      const id = decodeURIComponent(/\/items\/([^/?]+)$/.exec(page.url())![1]!);
      const created = (await api('GET', `/api/v1/items/posts/${id}`)).data;
      expect((await api('GET', `/api/v1/files/${created.cover as string}`)).data.filename).toBe('red.png');
      expect(violations).toEqual([]);
      await context.close();
    } finally {
      await api('PUT', '/api/v1/uploads/config', {});
    }
  });
});
