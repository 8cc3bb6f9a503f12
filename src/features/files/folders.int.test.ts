import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';
import { uploadTo } from '../../../test/support/upload-address.ts';

let t: TestApp;
let admin: string;
let viewer: string;
let outsider: string;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  viewer = await createUser(t, 'viewer@folders.test', 'Folders-pass-1618!', { main: 'viewer' });
  expect((await call('POST', '/api/v1/sites', { id: 'other', name: 'Other' })).statusCode).toBe(201);
  outsider = await createUser(t, 'outsider@folders.test', 'Folders-pass-1618!', { other: 'site_admin' });
});
afterAll(() => t.close());

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
function call(method: Method, url: string, payload?: unknown, as = admin, site = 'main') {
  return t.call({ method, url, as, site, ...(payload === undefined ? {} : { payload: payload as object }) });
}
const folder = async (name: string, parent: string | null = null) => {
  const res = await call('POST', '/api/v1/folders', { name, parent });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.id as string;
};

describe('folders', () => {
  it('keeps a tree: names unique under a parent, no folder under itself, only empty folders deleted', async () => {
    const photos = await folder('Photos');
    const summer = await folder('Summer', photos);
    const beach = await folder('Beach', summer);
    expect((await call('POST', '/api/v1/folders', { name: 'Summer', parent: photos })).statusCode).toBe(409);
    expect((await call('POST', '/api/v1/folders', { name: 'Summer' })).statusCode).toBe(201);
    const cycle = await call('PATCH', `/api/v1/folders/${photos}`, { parent: beach });
    expect(cycle.statusCode).toBe(400);
    expect(cycle.json().errors[0].path).toEqual(['body', 'parent']);
    expect((await call('PATCH', `/api/v1/folders/${photos}`, { parent: photos })).statusCode).toBe(400);
    expect((await call('POST', '/api/v1/folders', { name: 'x', parent: 'nope' })).statusCode).toBe(400);
    const moved = await call('PATCH', `/api/v1/folders/${beach}`, { parent: null, name: 'Beaches' });
    expect(moved.json().data).toMatchObject({ id: beach, parent: null, name: 'Beaches' });
    expect((await call('DELETE', `/api/v1/folders/${photos}`)).statusCode).toBe(409);

    // A file in a folder holds it; a file cannot name a folder the site does not have.
    const jpeg = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#000' } })
      .jpeg()
      .toBuffer();
    const { address } = await uploadTo(t, jpeg, { filename: 'a.jpg', mimeType: 'image/jpeg' }, { as: admin });
    const stray = await call('POST', '/api/v1/files', { uploadId: address.uploadId, folder: 'nope' });
    expect(stray.statusCode).toBe(400);
    expect(stray.json().errors[0].path).toEqual(['body', 'folder']);
    const file = (await call('POST', '/api/v1/files', { uploadId: address.uploadId, folder: summer })).json().data;
    expect((await call('GET', `/api/v1/files?filter[folder][_eq]=${summer}&fields=id`)).json().data).toEqual([
      { id: file.id },
    ]);
    expect((await call('DELETE', `/api/v1/folders/${summer}`)).statusCode).toBe(409);
    expect((await call('PATCH', `/api/v1/files/${file.id}`, { folder: null })).statusCode).toBe(200);
    expect((await call('DELETE', `/api/v1/folders/${summer}`)).statusCode).toBe(204);
    const names = (await call('GET', '/api/v1/folders', undefined, viewer))
      .json()
      .data.map((f: { name: string }) => f.name);
    expect(names).toEqual(['Beaches', 'Photos', 'Summer']);
  });

  it("keeps each site's folders to itself, and lets viewers only look", async () => {
    const mine = await folder('Private');
    expect((await call('GET', '/api/v1/folders', undefined, outsider, 'other')).json().data).toEqual([]);
    expect((await call('PATCH', `/api/v1/folders/${mine}`, { name: 'Taken' }, outsider, 'other')).statusCode).toBe(404);
    expect((await call('DELETE', `/api/v1/folders/${mine}`, undefined, outsider, 'other')).statusCode).toBe(404);
    expect((await call('POST', '/api/v1/folders', { name: 'In', parent: mine }, outsider, 'other')).statusCode).toBe(
      400,
    );
    expect((await call('GET', '/api/v1/folders', undefined, outsider, 'main')).statusCode).toBe(403);
    expect((await call('POST', '/api/v1/folders', { name: 'V' }, viewer)).statusCode).toBe(403);
    expect((await t.call({ method: 'GET', url: '/api/v1/folders', site: 'main' })).statusCode).toBe(401);
    for (const name of ['', ' ', 'x'.repeat(201)])
      expect((await call('POST', '/api/v1/folders', { name })).statusCode, JSON.stringify(name)).toBe(400);
  });
});
