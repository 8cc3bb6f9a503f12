import { randomUUID } from 'node:crypto';
import { githubSignature } from '../../../test/support/git-deliveries.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { apiClient, firstError } from '../../../test/setup/api.ts';
import { createUser } from '../../../test/setup/users.ts';
import { deliveryPayload } from './git.commands.ts';
import { deliveryKey, gitDeliveryStream } from '../../contracts/git/git.events.ts';

/** Site main: its admin and an editor; site other: its own admin. */
let t: TestApp;
let admin: string;
let editor: string;
let otherAdmin: string;
const { call, ok } = apiClient(
  () => t,
  () => admin,
);
const PASS = 'Git-integration-pass-1!';
const SECRET = 'a-webhook-secret-of-forty-characters-long';
const BASE = '/api/v1/integrations/git';

beforeAll(async () => {
  t = await createTestApp({ env: { SVC_PUBLIC_URL: 'https://cms.example.com/' } });
  admin = await t.setup();
  await ok('POST', '/api/v1/sites', { id: 'other', name: 'Other' });
  editor = await createUser(t, 'ed@example.com', PASS, { main: 'editor' });
  otherAdmin = await createUser(t, 'oa@example.com', PASS, { other: 'admin' });
}, 60_000);
afterAll(() => t.close());

const github = (over: object = {}) => ({
  provider: 'github',
  repository: 'acme/site',
  authMethod: 'pat',
  token: 'ghp_secret_token_value',
  webhookSecret: SECRET,
  ...over,
});

/** A delivery as GitHub sends it: the body signed with the secret. */
const deliver = (
  path: string,
  body: string,
  opts: { secret?: string; id?: string; type?: string; headers?: Record<string, string> } = {},
) =>
  t.call({
    method: 'POST',
    url: path,
    payload: body,
    headers: {
      'content-type': opts.type ?? 'application/json',
      'x-github-event': 'pull_request',
      'x-github-delivery': opts.id ?? randomUUID(),
      ...(opts.secret === undefined ? {} : { 'x-hub-signature-256': githubSignature(opts.secret, body) }),
      ...opts.headers,
    },
  });
const deliveries = async (id: string) => (await ok('GET', `${BASE}/${id}/deliveries`)) as { deliveryId: string }[];

describe('integrations', () => {
  it('keep the token and the secret write-only, and give the receiver address', async () => {
    const created = await ok('POST', BASE, github({ webhookSecret: undefined, sync_config: { preview: true } }));
    expect(created).toMatchObject({
      provider: 'github',
      repository: 'acme/site',
      baseUrl: null,
      authMethod: 'pat',
      hasToken: true,
      sync_config: { preview: true, branch: 'main', intentsPath: 'content', previewTtlHours: 72 },
      webhookUrl: `https://cms.example.com/api/v1/integrations/git/webhook/github/main/${created.id}`,
    });
    expect(created.webhookSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const read = await ok('GET', `${BASE}/${created.id}`);
    expect(read.webhookSecret).toBeUndefined();
    expect(JSON.stringify(read)).not.toContain('ghp_secret_token_value');
    expect(JSON.stringify(await ok('GET', BASE))).not.toContain('ghp_secret_token_value');
    const changed = await ok('PATCH', `${BASE}/${created.id}`, { token: null, sync_config: { branch: 'release/v2' } });
    expect(changed).toMatchObject({ hasToken: false, sync_config: { preview: true, branch: 'release/v2' } });
    expect((await ok('GET', BASE)).map((i: { id: string }) => i.id)).toContain(created.id);
    // The log holds the secrets sealed, never in clear.
    const events: unknown[] = [];
    for await (const e of t.deps.store.readStream(`main/git-integration/${created.id}`)) events.push(e.data);
    expect(JSON.stringify(events)).not.toContain('ghp_secret_token_value');
    expect(JSON.stringify(events)).not.toContain(created.webhookSecret);
  });

  it('are for site admins of their own site only', async () => {
    const mine = await ok('POST', BASE, github());
    expect((await call('GET', BASE, undefined, { as: null })).statusCode).toBe(401);
    expect((await call('GET', BASE, undefined, { as: editor })).statusCode).toBe(403);
    expect((await call('POST', BASE, github(), { as: editor })).statusCode).toBe(403);
    for (const [method, body] of [['GET'], ['PATCH', { repository: 'evil/x' }], ['DELETE']] as const) {
      const res = await call(method, `${BASE}/${mine.id}`, body, { as: otherAdmin, site: 'other' });
      expect(res.statusCode, res.body).toBe(404);
    }
    expect(
      (await call('GET', `${BASE}/${mine.id}/deliveries`, undefined, { as: otherAdmin, site: 'other' })).statusCode,
    ).toBe(404);
    expect(await ok('GET', BASE, undefined, { as: otherAdmin, site: 'other' })).toEqual([]);
    expect((await ok('GET', `${BASE}/${mine.id}`)).repository).toBe('acme/site');
  });
});

describe('integrations', () => {
  it('refuse bad settings with precise 400s', async () => {
    for (const [body, path] of [
      [github({ repository: '../etc' }), 'repository'],
      [github({ repository: 'no-owner' }), 'repository'],
      [github({ baseUrl: 'http://github.internal' }), 'baseUrl'],
      [github({ baseUrl: 'https://user:pw@ghe.example.com' }), 'baseUrl'],
      [github({ baseUrl: 'https://169.254.169.254/latest' }), 'baseUrl'],
      [github({ baseUrl: 'https://localhost:6379' }), 'baseUrl'],
      [github({ baseUrl: 'https://[::1]/' }), 'baseUrl'],
      [github({ baseUrl: 'https://10.0.0.1' }), 'baseUrl'],
      [github({ repository: '-oProxyCommand/x' }), 'repository'],
      [github({ repository: '.git/x' }), 'repository'],
      [github({ webhookSecret: 'a'.repeat(40) }), 'webhookSecret'],
      [github({ sync_config: { branch: '-x' } }), 'sync_config'],
      [github({ sync_config: { branch: '.hidden/a.lock' } }), 'sync_config'],
      [github({ sync_config: { intentsPath: '/etc/passwd' } }), 'sync_config'],
      [github({ sync_config: { intentsPath: '.git/hooks' } }), 'sync_config'],
      [github({ sync_config: { intentsPath: 'a//b' } }), 'sync_config'],
      [github({ provider: 'bitbucket' }), 'provider'],
      [github({ webhookSecret: 'short' }), 'webhookSecret'],
      [github({ sync_config: { branch: 'a..b' } }), 'sync_config'],
      [github({ sync_config: { intentsPath: '../../secrets' } }), 'sync_config'],
      [github({ sync_config: { previewTtlHours: 0 } }), 'sync_config'],
      [github({ extra: 1 }), ''],
    ] as const) {
      const res = await call('POST', BASE, body);
      expect(res.statusCode, `${JSON.stringify(body)}: ${res.body}`).toBe(400);
      if (path) expect(firstError(res.body).path.join('.')).toContain(path);
    }
    const proto = await t.call({
      method: 'POST',
      url: BASE,
      as: admin,
      site: 'main',
      payload: '{"provider":"github","repository":"a/b","authMethod":"pat","__proto__":{"x":1}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(proto.statusCode).toBe(400);
    const mine = await ok('POST', BASE, github());
    let deep = '{"x":1}';
    for (let i = 0; i < 200; i++) deep = `{"a":${deep}}`;
    for (const [method, url, raw] of [
      ['POST', BASE, JSON.stringify(github({ repository: 'acme/\u0000x' }))],
      ['POST', BASE, JSON.stringify(github({ sync_config: { previewTtlHours: 1e308 } }))],
      ['POST', BASE, '{"provider":"github","repository":"a/b","authMethod":"pat","constructor":{"prototype":{"x":1}}}'],
      ['POST', BASE, deep],
      ['PATCH', `${BASE}/${mine.id}`, '{"sync_config":{"__proto__":{"preview":true}}}'],
      ['PATCH', `${BASE}/${mine.id}`, '{"sync_config":{"previewTtlHours":99999999999999999999}}'],
      ['PATCH', `${BASE}/${mine.id}`, deep],
      ['GET', `${BASE}/${mine.id}/deliveries?limit=1e308`, undefined],
      ['GET', `${BASE}/${mine.id}/deliveries?offset=-1`, undefined],
      ['GET', `${BASE}/a%00b`, undefined],
    ] as const) {
      const res = await t.call({
        method,
        url,
        as: admin,
        site: 'main',
        ...(raw === undefined ? {} : { payload: raw, headers: { 'content-type': 'application/json' } }),
      });
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(400);
      expect(firstError(res.body).code).toBe('VALIDATION_FAILED');
    }
    expect((await ok('GET', `${BASE}/${mine.id}`)).sync_config.preview).toBe(false);
    for (const [method, url] of [
      ['POST', BASE],
      ['GET', `${BASE}/${mine.id}`],
      ['PATCH', `${BASE}/${mine.id}`],
      ['DELETE', `${BASE}/${mine.id}`],
      ['GET', `${BASE}/${mine.id}/deliveries`],
    ] as const)
      expect(
        (await call(method, url, method === 'GET' || method === 'DELETE' ? undefined : {}, { as: null })).statusCode,
      ).toBe(401);
    expect((await call('PATCH', `${BASE}/nope`, { repository: 'a/b' })).statusCode).toBe(404);
    expect((await call('DELETE', `${BASE}/nope`)).statusCode).toBe(404);
  });
});

/** The receiver's integration on site main (made before its first test) and the body of a pull request delivery. */
let gh: { id: string };
let hook: string;
const body = JSON.stringify({ action: 'opened', number: 7, pull_request: { title: 'Ünïcode – title' } });

describe('the webhook receiver', () => {
  beforeAll(async () => {
    gh = await ok('POST', BASE, github());
    hook = `${BASE}/webhook/github/main/${gh.id}`;
  });

  it('records a verified GitHub delivery once, however often it is redelivered', async () => {
    const id = randomUUID();
    const first = await deliver(hook, body, { secret: SECRET, id });
    expect([first.statusCode, first.json().data]).toEqual([200, { deliveryId: id, duplicate: false }]);
    const again = await deliver(hook, body, { secret: SECRET, id });
    expect([again.statusCode, again.json().data]).toEqual([200, { deliveryId: id, duplicate: true }]);
    expect((await deliveries(gh.id)).filter((d) => d.deliveryId === id)).toHaveLength(1);
    // The same signed body under another delivery id (a replay) is the same delivery.
    const replay = await deliver(hook, body, { secret: SECRET, headers: { 'x-github-event': 'release' } });
    expect(replay.json().data.duplicate).toBe(true);
    expect((await deliveries(gh.id)).filter((d) => d.deliveryId === id)).toHaveLength(1);
    // Another integration of the site has deliveries of its own, even under the same id.
    const twin = await ok('POST', BASE, github());
    const onTwin = await deliver(`${BASE}/webhook/github/main/${twin.id}`, body, { secret: SECRET, id });
    expect(onTwin.json().data.duplicate).toBe(false);
    expect((await deliveries(twin.id)).map((d) => d.deliveryId)).toEqual([id]);
  });

  it('keeps each payload sealed under its integration, unreadable once the integration is deleted', async () => {
    const own = await ok('POST', BASE, github());
    const marked = JSON.stringify({ sender: { login: 'octocat', email: 'octo@example.com' } });
    expect((await deliver(`${BASE}/webhook/github/main/${own.id}`, marked, { secret: SECRET })).statusCode).toBe(200);
    // Its own stream (the global log's reader may hold events back while other appends are open).
    const recorded: { integrationId: string; payload: string }[] = [];
    for await (const e of t.deps.store.readStream(gitDeliveryStream('main', own.id, deliveryKey(marked))))
      recorded.push(e.data as { integrationId: string; payload: string });
    expect(recorded).toHaveLength(1);
    expect(JSON.stringify(recorded)).not.toContain('octo@example.com');
    expect(await deliveryPayload(t.deps, recorded[0]!)).toEqual(JSON.parse(marked));
    await ok('DELETE', `${BASE}/${own.id}`);
    expect(await deliveryPayload(t.deps, recorded[0]!)).toBeNull();
  });

  it('takes JSON only: a form or text reading of a signed body is refused before it is read', async () => {
    // Signed JSON whose text also parses as a form with another payload.
    const sly = JSON.stringify({ note: `&payload=${encodeURIComponent('{"forged":true}')}&` });
    for (const type of ['application/x-www-form-urlencoded', 'text/plain', 'application/xml']) {
      const res = await deliver(hook, sly, { secret: SECRET, type });
      expect(res.statusCode, res.body).toBe(415);
    }
    const before = (await deliveries(gh.id)).length;
    const none = await t.call({ method: 'POST', url: hook, headers: { 'x-github-delivery': randomUUID() } });
    expect(none.statusCode).toBe(401);
    expect((await deliveries(gh.id)).length).toBe(before);
  });

  it('refuses the old secret once it was rotated', async () => {
    const rotated = await ok('POST', BASE, github());
    const path = `${BASE}/webhook/github/main/${rotated.id}`;
    expect((await deliver(path, body, { secret: SECRET })).statusCode).toBe(200);
    await ok('PATCH', `${BASE}/${rotated.id}`, { webhookSecret: 'the-rotated-secret-value-123' });
    expect((await deliver(path, `${body} `, { secret: SECRET })).statusCode).toBe(401);
    expect((await deliver(path, `${body}  `, { secret: 'the-rotated-secret-value-123' })).statusCode).toBe(200);
  });
});

describe('the webhook receiver', () => {
  it('answers 401 INVALID_SIGNATURE to anything unverified, and writes nothing', async () => {
    const other = await ok('POST', BASE, github({ webhookSecret: 'another-secret-of-enough-length' }));
    const before = (await deliveries(gh.id)).length;
    const refused = [
      await deliver(hook, body, {}),
      await deliver(hook, body, { secret: 'the-wrong-secret-entirely' }),
      await deliver(hook, body, { secret: 'another-secret-of-enough-length' }),
      await deliver(hook, body, { headers: { 'x-hub-signature-256': 'sha256=abc' } }),
      await deliver(hook, body, { headers: { 'x-hub-signature-256': `sha1=${'0'.repeat(40)}` } }),
      // Signed, then changed on the way.
      await t.call({
        method: 'POST',
        url: hook,
        payload: body.replace('opened', 'closed'),
        headers: {
          'content-type': 'application/json',
          'x-github-delivery': randomUUID(),
          'x-hub-signature-256': githubSignature(SECRET, body),
        },
      }),
      await deliver(`${BASE}/webhook/gitlab/main/${gh.id}`, body, {
        secret: SECRET,
        headers: { 'x-gitlab-token': SECRET },
      }),
      await deliver(`${BASE}/webhook/github/other/${gh.id}`, body, { secret: SECRET }),
      await deliver(`${BASE}/webhook/github/main/unknown`, body, { secret: SECRET }),
      await deliver(`${BASE}/webhook/github/main/${other.id}`, body, { secret: SECRET }),
      await deliver(`${BASE}/webhook/bitbucket/main/${gh.id}`, body, { secret: SECRET }),
    ];
    for (const res of refused) {
      expect(res.statusCode, res.body).toBe(401);
      expect(firstError(res.body).code).toBe('INVALID_SIGNATURE');
    }
    expect((await deliveries(gh.id)).length).toBe(before);
    expect(await deliveries(other.id)).toEqual([]);
  });

  it('answers a verified delivery it cannot use with a precise 400 or 413', async () => {
    const noId = await t.call({
      method: 'POST',
      url: hook,
      payload: body,
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': githubSignature(SECRET, body),
      },
    });
    expect([noId.statusCode, firstError(noId.body).code]).toEqual([400, 'VALIDATION_FAILED']);
    for (const bad of ['not json', '[1,2]', '{"a":{"__proto__":{"x":1}}}', '{"a":"\\u0000"}']) {
      const res = await deliver(hook, bad, { secret: SECRET });
      expect([res.statusCode, firstError(res.body).path]).toEqual([400, ['body']]);
    }
    const huge = JSON.stringify({ blob: 'x'.repeat(3 * 1024 * 1024) });
    expect((await deliver(hook, huge, { secret: SECRET })).statusCode).toBe(413);
  });
});

describe('the webhook receiver', () => {
  it('verifies GitLab by its token, and stops at once when the integration is deleted', async () => {
    const gl = await ok('POST', BASE, github({ provider: 'gitlab', repository: 'group/sub/site' }));
    const path = `${BASE}/webhook/gitlab/main/${gl.id}`;
    const send = (token: string | null, headers: Record<string, string> = {}, url = path) =>
      t.call({
        method: 'POST',
        url,
        payload: '{"object_kind":"pipeline"}',
        headers: {
          'content-type': 'application/json',
          'x-gitlab-event': 'Pipeline Hook',
          'x-gitlab-event-uuid': randomUUID(),
          ...(token === null ? {} : { 'x-gitlab-token': token }),
          ...headers,
        },
      });
    const good = await send(SECRET);
    expect(good.statusCode, good.body).toBe(200);
    expect((await send(`${SECRET}x`)).statusCode).toBe(401);
    expect((await send(null)).statusCode).toBe(401);
    // A GitLab delivery at a GitHub integration's address.
    expect((await send(SECRET, {}, `${BASE}/webhook/github/main/${gh.id}`)).statusCode).toBe(401);
    // A retry carries GitLab's Idempotency-Key: the same delivery, whatever its event id.
    const retryKey = { 'idempotency-key': randomUUID() };
    const first = await send(SECRET, retryKey);
    const retried = await send(SECRET, retryKey);
    expect([first.json().data.duplicate, retried.json().data.duplicate]).toEqual([false, true]);
    expect((await deliveries(gl.id)).at(-1)).toMatchObject({ provider: 'gitlab', event: 'Pipeline Hook' });
    await ok('DELETE', `${BASE}/${gl.id}`);
    expect((await send(SECRET)).statusCode).toBe(401);
    expect((await call('GET', `${BASE}/${gl.id}`)).statusCode).toBe(404);
  });
});
