import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanPdf, cleanPng, cleanSvg, cleanText } from '../../../test/fixtures/uploads/corpus.ts';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';

let t: TestApp;
let admin: string;
let viewer: string;
let otherAdmin: string;
const PASSWORD = 'Hostile-pass-1618!x';

const solid = (width: number, height: number, format: 'png' | 'jpeg' = 'png') => {
  const image = sharp({ create: { width, height, channels: 3, background: '#3a7' } });
  return (format === 'png' ? image.png() : image.jpeg()).toBuffer();
};

async function put(app: TestApp, as: string, key: string, body: Buffer, type = 'image/png', site = 'main') {
  const res = await app.call({
    method: 'POST',
    url: `/api/v1/media/${key}`,
    as,
    site,
    headers: { 'content-type': type },
    payload: body,
  });
  expect(res.statusCode, `${key}: ${res.body}`).toBeLessThan(300);
  return res.json().data as { sha256: string };
}
// A promise, not light-my-request's lazy chain: the request starts at once even when not awaited yet.
const get = async (app: TestApp, url: string, as?: string, site = 'main', headers: Record<string, string> = {}) =>
  app.call({ method: 'GET', url, as, site, headers });
const derivatives = (app: TestApp, key: string, site = 'main') =>
  app.deps.storage.list(`sites/${site}/media/${key}/derivatives/`);

/** Asks for a transform and expects the redirect; returns its Location. */
async function transform(app: TestApp, as: string, key: string, query: string) {
  const res = await get(app, `/api/v1/media/${key}?${query}`, as);
  expect(res.statusCode, `${query}: ${res.body}`).toBe(302);
  return res.headers.location as string;
}
const firstError = (res: { json(): unknown }) =>
  (res.json() as { errors: { code: string; path: string[]; extensions: Record<string, unknown> }[] }).errors[0]!;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  viewer = await createUser(t, 'viewer@hostile.test', PASSWORD, { main: 'viewer' });
  const site = await t.call({ method: 'POST', url: '/api/v1/sites', as: admin, payload: { id: 'other', name: 'O' } });
  expect(site.statusCode, site.body).toBe(201);
  otherAdmin = await createUser(t, 'other@hostile.test', PASSWORD, { other: 'site_admin' });
});
afterAll(() => t.close());

describe('GET /api/v1/media/:key with transform parameters', () => {
  it('answers every out-of-range or malformed parameter with 400 and its path, and writes nothing', async () => {
    await put(t, admin, 'param.png', await cleanPng());
    // Each case is the query; the parameter its last pair names is the one the answer must point at.
    const cases = [
      ...'width=0 width=5001 width=-1 width=1.5 width=abc width=1e3 width=0x10 width= height=5001'.split(' '),
      ...'focal=2,0 focal=0.5 focal=0.5,0.5,0.5 focal=NaN,1 focal=..,0 quality=0 quality=101'.split(' '),
      ...'quality=50.5 fit=crop format=gif format=svg preset=Bad%20Key width=10&width=20'.split(' '),
      ...'width=10&blur=5 __proto__=1 constructor=1 width=10&prototype=1'.split(' '),
      `width=${'9'.repeat(26)}`,
    ];
    // Every case is tried and every wrong answer reported at once.
    const wrong: string[] = [];
    for (const query of cases) {
      const param = query.split('&').at(-1)!.split('=')[0]!;
      const before = (await derivatives(t, 'param.png')).length;
      const res = await get(t, `/api/v1/media/param.png?${query}`, admin);
      const answer = res.statusCode === 400 ? firstError(res) : undefined;
      const written = (await derivatives(t, 'param.png')).length - before;
      if (answer?.code !== 'VALIDATION_FAILED' || answer.path.join('.') !== `query.${param}` || written > 0)
        wrong.push(
          `${query} → ${res.statusCode} ${answer?.code ?? ''} ${answer?.path.join('.') ?? ''}, ${written} written`,
        );
    }
    expect(wrong).toEqual([]);
  });

  it('refuses a transform whose output would be over 5000 pixels on a side, before making anything', async () => {
    await put(t, admin, 'tall.png', await solid(100, 4000));
    const queries = 'width=5000&fit=outside width=5000 width=5000&height=10&fit=cover width=5000&height=10&focal=1,1';
    for (const query of queries.split(' ')) {
      const res = await get(t, `/api/v1/media/tall.png?${query}`, admin);
      expect(res.statusCode, `${query}: ${res.body}`).toBe(400);
      expect(firstError(res), query).toMatchObject({ code: 'VALIDATION_FAILED', path: ['query', 'fit'] });
    }
    expect(await derivatives(t, 'tall.png')).toEqual([]);
  });

  it('answers 422 TRANSFORM_UNSUPPORTED for SVG, PDF and text, and still serves them untransformed', async () => {
    const files: [string, Buffer, string][] = [
      ['shape.svg', Buffer.from(cleanSvg()), 'image/svg+xml'],
      ['doc.pdf', cleanPdf(), 'application/pdf'],
      ['note.txt', cleanText(), 'text/plain'],
    ];
    for (const [key, body, type] of files) {
      await put(t, admin, key, body, type);
      const res = await get(t, `/api/v1/media/${key}?width=10`, admin);
      expect(res.statusCode, `${key}: ${res.body}`).toBe(422);
      expect(firstError(res).code, key).toBe('TRANSFORM_UNSUPPORTED');
      expect(await derivatives(t, key), key).toEqual([]);
      expect((await get(t, `/api/v1/media/${key}`, admin)).statusCode, key).toBe(200);
    }
  });

  it('makes one derivative when many ask for it at once, in any spelling', async () => {
    await put(t, admin, 'burst.jpg', await solid(1200, 900, 'jpeg'), 'image/jpeg');
    const spellings = ['width=300&format=webp', 'format=webp&width=300&fit=cover&quality=80'];
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => get(t, `/api/v1/media/burst.jpg?${spellings[i % 2]}`, admin)),
    );
    expect(answers.map((r) => r.statusCode)).toEqual(Array(8).fill(302));
    expect(new Set(answers.map((r) => r.headers.location)).size).toBe(1);
    expect(await derivatives(t, 'burst.jpg')).toHaveLength(1);
    const served = await get(t, answers[0]!.headers.location as string, admin);
    expect(served.statusCode).toBe(200);
    expect(await sharp(served.rawPayload).metadata()).toMatchObject({ format: 'webp', width: 300, height: 225 });
  });
});

describe('GET /api/v1/media/:key/derivatives/:sha256/:name', () => {
  it("hides a site's derivatives from other sites and from anonymous callers", async () => {
    await put(t, admin, 'cross.png', await cleanPng());
    const location = await transform(t, admin, 'cross.png', 'width=20');
    expect((await get(t, location, admin)).statusCode).toBe(200);
    // The other site has a key of the same name and the same bytes (the same sha256): still not main's derivative.
    await put(t, otherAdmin, 'cross.png', await cleanPng(), 'image/png', 'other');
    expect((await get(t, location, otherAdmin, 'other')).statusCode).toBe(404);
    expect((await get(t, location, otherAdmin, 'main')).statusCode).toBe(403);
    expect((await get(t, location, undefined, 'main')).statusCode).toBe(401);
    expect(await derivatives(t, 'cross.png', 'other')).toEqual([]);
  });

  it('answers made-up addresses with 404 or 400', async () => {
    await put(t, admin, 'madeup.png', await cleanPng());
    const location = await transform(t, admin, 'madeup.png', 'width=21');
    const [, sha, name] = /\/derivatives\/([0-9a-f]{64})\/([0-9a-f]{32}\.\w+)$/.exec(location)!;
    const base = '/api/v1/media/madeup.png/derivatives';
    expect((await get(t, `${base}/${'0'.repeat(64)}/${name}`, admin)).statusCode).toBe(404);
    expect((await get(t, `${base}/${sha}/${'f'.repeat(32)}.png`, admin)).statusCode).toBe(404);
    expect((await get(t, `/api/v1/media/nothing.png/derivatives/${sha}/${name}`, admin)).statusCode).toBe(404);
    // A validator for an address that holds nothing does not turn a 404 into a 304 (the ETag names the derivative).
    const etag = (await get(t, location, admin)).headers.etag as string;
    const unmade = `${'e'.repeat(32)}.png`;
    const validator = { 'if-none-match': etag.replace(name!, unmade) };
    const conditional = await get(t, `${base}/${sha}/${unmade}`, admin, 'main', validator);
    expect(conditional.statusCode).toBe(404);
    const malformed: [string, string][] = [
      [`${base}/${sha!.toUpperCase()}/${name}`, 'sha256'],
      [`${base}/${sha}/${name!.replace(/\.\w+$/, '.gif')}`, 'name'],
      [`${base}/${sha}/..%2f${name}`, 'name'],
      [`${base}/${sha}/${'a'.repeat(31)}.png`, 'name'],
    ];
    for (const [url, param] of malformed) {
      const res = await get(t, url, admin);
      expect(res.statusCode, url).toBe(400);
      expect(firstError(res).path, url).toEqual(['params', param]);
    }
  });

  it('forgets the derivatives of replaced bytes and of a deleted key, in storage too', async () => {
    const old = await put(t, admin, 'swap.png', await cleanPng());
    const before = await transform(t, admin, 'swap.png', 'width=30');
    await transform(t, admin, 'swap.png', 'width=31&format=webp');
    expect(await derivatives(t, 'swap.png')).toHaveLength(2);
    const now = await put(t, admin, 'swap.png', await solid(50, 40));
    expect((await get(t, before, admin)).statusCode).toBe(404);
    expect(await t.deps.storage.list(`sites/main/media/swap.png/derivatives/${old.sha256}/`)).toEqual([]);
    const after = await transform(t, admin, 'swap.png', 'width=30');
    expect(after).toContain(`/derivatives/${now.sha256}/`);
    // The old address stays dead even though a derivative of the same name exists for the new bytes.
    expect(after.replace(now.sha256, old.sha256)).toBe(before);
    expect((await get(t, before, admin)).statusCode).toBe(404);
    expect(
      (await t.call({ method: 'DELETE', url: '/api/v1/media/swap.png', as: admin, site: 'main' })).statusCode,
    ).toBe(204);
    expect(await derivatives(t, 'swap.png')).toEqual([]);
    expect((await get(t, after, admin)).statusCode).toBe(404);
  });
});

describe('GET /api/v1/media/:key under SVC_TRANSFORM_MAX_PIXELS', () => {
  it('refuses a source over SVC_TRANSFORM_MAX_PIXELS with 422 before reading it', async () => {
    const small = await createTestApp({ env: { SVC_TRANSFORM_MAX_PIXELS: '10000' } });
    try {
      const token = await small.setup();
      await put(small, token, 'big.png', await solid(200, 200));
      const res = await get(small, '/api/v1/media/big.png?width=10', token);
      expect(res.statusCode, res.body).toBe(422);
      expect(firstError(res)).toMatchObject({
        code: 'TRANSFORM_SOURCE_TOO_LARGE',
        extensions: { width: 200, height: 200, maxPixels: 10000 },
      });
      expect(await derivatives(small, 'big.png')).toEqual([]);
      // Exactly at the limit is allowed.
      await put(small, token, 'edge.png', await solid(100, 100));
      await transform(small, token, 'edge.png', 'width=10');
      expect(await derivatives(small, 'edge.png')).toHaveLength(1);
    } finally {
      await small.close();
    }
  });
});

describe('GET /api/v1/media/:key with one transform slot and no queue', () => {
  let busy: TestApp;
  let token: string;
  let huge: Buffer;
  beforeAll(async () => {
    busy = await createTestApp({ env: { SVC_TRANSFORM_CONCURRENCY: '1', SVC_TRANSFORM_QUEUE: '0' } });
    token = await busy.setup();
    huge = await solid(3000, 3000);
  });
  afterAll(() => busy.close());
  // Widths near the original's: no shrink-on-load, so each transform holds the slot for a while.
  const slow = (w: number) => `width=${w}&format=jpeg`;

  it('answers 503 with Retry-After when the slot is taken, shares identical requests, and a retry succeeds', async () => {
    await put(busy, token, 'huge.png', huge);
    const queries = [2990, 2980, 2970, 2960, 2950, 2940].map(slow);
    const answers = await Promise.all(queries.map((q) => get(busy, `/api/v1/media/huge.png?${q}`, token)));
    const refused = queries.filter((_, i) => answers[i]!.statusCode === 503);
    expect(refused.length, answers.map((r) => r.statusCode).join()).toBeGreaterThan(0);
    for (const res of answers) {
      if (res.statusCode === 302) continue;
      expect(res.statusCode, res.body).toBe(503);
      expect(res.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
      expect(firstError(res).code).toBe('SERVICE_UNAVAILABLE');
    }
    const made = answers.length - refused.length;
    expect(made).toBeGreaterThan(0);
    expect(await derivatives(busy, 'huge.png')).toHaveLength(made);
    for (const q of refused) await transform(busy, token, 'huge.png', q);
    expect(await derivatives(busy, 'huge.png')).toHaveLength(queries.length);
    // Identical requests wait for the one transform instead of asking for a slot of their own.
    const same = await Promise.all(
      Array.from({ length: 4 }, () => get(busy, `/api/v1/media/huge.png?${slow(2930)}`, token)),
    );
    expect(same.map((r) => r.statusCode)).toEqual([302, 302, 302, 302]);
  });

  /**
   * Runs `change` while a transform of `key` holds the only slot: a second transform, sent a request later, is
   * refused meanwhile. When the second one wins the slot instead, the pair is tried again with other widths.
   */
  async function whileTransforming(key: string, change: () => Promise<unknown>) {
    for (let w = 2990; w > 2900; w -= 20) {
      const transforming = get(busy, `/api/v1/media/${key}?${slow(w)}`, token);
      await get(busy, `/api/v1/media/${key}`, token);
      const probe = await get(busy, `/api/v1/media/${key}?${slow(w - 10)}`, token);
      if (probe.statusCode !== 503) {
        await transforming;
        continue;
      }
      await change();
      return transforming;
    }
    throw new Error('no transform held the slot long enough');
  }

  // The transform read the old bytes and writes its result after the change removed their derivatives.
  it('leaves no derivative of the old bytes when the key is replaced during a transform', async () => {
    const old = await put(busy, token, 'race.png', huge);
    await whileTransforming('race.png', async () => put(busy, token, 'race.png', await solid(20, 20)));
    expect(await busy.deps.storage.list(`sites/main/media/race.png/derivatives/${old.sha256}/`)).toEqual([]);
  });

  it('leaves no derivative when the key is deleted during a transform', async () => {
    await put(busy, token, 'gone.png', huge);
    const answer = await whileTransforming('gone.png', async () => {
      const del = await busy.call({ method: 'DELETE', url: '/api/v1/media/gone.png', as: token, site: 'main' });
      expect(del.statusCode).toBe(204);
    });
    expect(await derivatives(busy, 'gone.png')).toEqual([]);
    // Whatever the race's outcome, an answer never shows where or how the bytes are stored.
    expect(answer.body).not.toMatch(/ENOENT|svc-test-files|sites\/main\/media/);
  });
});

const PRESETS = '/api/v1/transform-presets';
type PresetView = { id: string; key: string; name: string; dsl: string };
const preset = (
  method: 'POST' | 'PATCH' | 'DELETE' | 'GET',
  url: string,
  as: string | undefined,
  payload?: object,
  site = 'main',
) => t.call({ method, url, as, site, ...(payload ? { payload } : {}) });

describe('/api/v1/transform-presets', () => {
  it('answers hostile DSLs and keys with 400 and the path, and saves nothing', async () => {
    const wrong: string[] = [];
    const refused = async (payload: object, path: string[]) => {
      const res = await preset('POST', PRESETS, admin, payload);
      const at = res.statusCode === 400 ? firstError(res).path.slice(0, path.length).join('.') : '';
      if (at !== path.join('.')) wrong.push(`${JSON.stringify(payload).slice(0, 70)} → ${res.statusCode} ${at}`);
    };
    const dsls = 'w= w=1,w=2 x=1 w=6000 focal=2:0 q=0 __proto__=1 w=1;h=2 w=1, fit=crop format=gif focal=0.5 w=1e3';
    for (const dsl of ['', 'w=1,'.repeat(75), ...dsls.split(' ')])
      await refused({ key: 'hostile', name: 'H', dsl }, ['body', 'dsl']);
    for (const key of ['Bad Key', '__proto__', 'a'.repeat(65), '', '-lead', 'a/b'])
      await refused({ key, name: 'H', dsl: 'w=10' }, ['body', 'key']);
    await refused({ key: 'long', name: 'n'.repeat(201), dsl: 'w=10' }, ['body', 'name']);
    await refused({ key: 'extra', name: 'H', dsl: 'w=10', id: 'mine' }, ['body']);
    expect(wrong).toEqual([]);
    const list = await preset('GET', PRESETS, admin);
    expect(list.json().meta.total).toBe(0);
  });

  it('keeps keys unique per site and presets apart between sites', async () => {
    const made = await preset('POST', PRESETS, admin, { key: 'thumb', name: 'Thumb', dsl: 'w=40,h=40' });
    expect(made.statusCode, made.body).toBe(201);
    const id = made.json().data.id as string;
    const twice = await preset('POST', PRESETS, admin, { key: 'thumb', name: 'Again', dsl: 'w=10' });
    expect(twice.statusCode).toBe(409);
    expect(firstError(twice).code).toBe('CONFLICT');
    const card = await preset('POST', PRESETS, admin, { key: 'card', name: 'Card', dsl: 'w=10' });
    const renamed = await preset('PATCH', `${PRESETS}/${card.json().data.id}`, admin, { key: 'thumb' });
    expect(renamed.statusCode).toBe(409);
    const bad = await preset('PATCH', `${PRESETS}/${id}`, admin, { dsl: 'w=0' });
    expect(bad.statusCode).toBe(400);
    expect(firstError(bad).path.slice(0, 2)).toEqual(['body', 'dsl']);
    // The same key in another site is a preset of its own.
    const theirs = await preset('POST', PRESETS, otherAdmin, { key: 'banner', name: 'B', dsl: 'w=50' }, 'other');
    expect(theirs.statusCode, theirs.body).toBe(201);
    expect(
      (await preset('POST', PRESETS, otherAdmin, { key: 'thumb', name: 'T', dsl: 'w=5' }, 'other')).statusCode,
    ).toBe(201);
    const mine = (await preset('GET', PRESETS, admin)).json().data.map((p: PresetView) => `${p.key}:${p.dsl}`);
    expect(mine).toEqual(expect.arrayContaining(['card:w=10', 'thumb:w=40,h=40']));
    expect(mine.filter((p: string) => p.startsWith('banner'))).toEqual([]);
    await put(t, admin, 'preset.png', await cleanPng());
    const foreign = await get(t, '/api/v1/media/preset.png?preset=banner', admin);
    expect(foreign.statusCode).toBe(400);
    expect(firstError(foreign).path).toEqual(['query', 'preset']);
    expect(await derivatives(t, 'preset.png')).toEqual([]);
    await transform(t, admin, 'preset.png', 'preset=thumb');
  });

  it('follows the media rights: viewers list only, other sites neither see nor change', async () => {
    const made = await preset('POST', PRESETS, admin, { key: 'rights', name: 'Rights', dsl: 'w=40,h=40' });
    const id = made.json().data.id as string;
    expect((await preset('GET', PRESETS, viewer)).statusCode).toBe(200);
    expect((await preset('POST', PRESETS, viewer, { key: 'v', name: 'V', dsl: 'w=1' })).statusCode).toBe(403);
    expect((await preset('PATCH', `${PRESETS}/${id}`, viewer, { name: 'V' })).statusCode).toBe(403);
    expect((await preset('DELETE', `${PRESETS}/${id}`, viewer)).statusCode).toBe(403);
    const seen = await preset('GET', PRESETS, otherAdmin, undefined, 'other');
    expect(seen.json().data.map((p: { id: string }) => p.id)).not.toContain(id);
    expect((await preset('PATCH', `${PRESETS}/${id}`, otherAdmin, { name: 'Mine' }, 'other')).statusCode).toBe(404);
    expect((await preset('DELETE', `${PRESETS}/${id}`, otherAdmin, undefined, 'other')).statusCode).toBe(404);
    expect((await preset('GET', PRESETS, otherAdmin, undefined, 'main')).statusCode).toBe(403);
    expect((await preset('PATCH', `${PRESETS}/${id}`, otherAdmin, { name: 'Mine' }, 'main')).statusCode).toBe(403);
    expect((await preset('DELETE', `${PRESETS}/${id}`, otherAdmin, undefined, 'main')).statusCode).toBe(403);
    expect((await preset('GET', PRESETS, undefined)).statusCode).toBe(401);
    expect((await preset('PATCH', `${PRESETS}/__proto__`, admin, { name: 'x' })).statusCode).toBe(400);
    const still = (await preset('GET', PRESETS, admin)).json().data.find((p: { id: string }) => p.id === id);
    expect(still).toMatchObject({ key: 'rights', name: 'Rights', dsl: 'w=40,h=40' });
  });
});
