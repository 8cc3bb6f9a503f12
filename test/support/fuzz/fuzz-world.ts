import { randomBytes } from 'node:crypto';
import type { TestApp } from '../../setup/app.ts';
import { createUser } from '../../setup/users.ts';

/** The ids and marker strings of one site: what a caller of the other site must never see. */
export interface SiteData {
  site: string;
  marker: string;
  item: string;
  page: string;
  slug: string;
  release: string;
  role: string;
  policy: string;
  team: string;
  relation: string;
  users: string[];
}

/** Two sites with their own admins, a low-privilege user of each, and content carrying each site's marker. */
export interface FuzzWorld {
  instanceAdmin: string;
  a: SiteData;
  b: SiteData;
  /** Logins of the fuzzed callers, so a token that a fuzzed request revoked can be renewed. */
  logins: Map<string, { email: string; password: string; token: string }>;
}

const PASSWORD = 'Fuzz-pass-1234567!';

async function ok(t: TestApp, as: string, site: string, method: 'POST' | 'GET', url: string, payload?: object) {
  const res = await t.call({ method, url, as, site, ...(payload ? { payload } : {}) });
  if (res.statusCode >= 300) throw new Error(`fuzz setup: ${method} ${url} answered ${res.statusCode} ${res.body}`);
  return res.json().data as { id: string };
}

async function userId(t: TestApp, token: string): Promise<string> {
  const res = await t.call({ method: 'GET', url: '/api/v1/auth/me', as: token });
  return (res.json().data as { id: string }).id;
}

/** Content of one site, written by that site's admin; every name carries the site's marker. */
async function content(t: TestApp, root: string, admin: string, site: string, users: string[]): Promise<SiteData> {
  const marker = `FUZZMARK${site.toUpperCase()}${randomBytes(4).toString('hex')}`;
  const call = (url: string, payload: object) => ok(t, admin, site, 'POST', url, payload);
  await ok(t, root, site, 'POST', '/api/v1/collections', { name: 'articles' });
  await call('/api/v1/fields/articles', { field: 'title', type: 'string' });
  await call('/api/v1/fields/articles', { field: 'author', type: 'string' });
  await call('/api/v1/collections', { name: `people` });
  const relation = await call('/api/v1/relations', {
    kind: 'm2o',
    collection: 'articles',
    field: 'author',
    target: 'people',
  });
  const items: string[] = [];
  for (let i = 0; i < 3; i++)
    items.push((await call('/api/v1/items/articles', { title: `${marker} item ${i}`, status: 'published' })).id);
  await call(`/api/v1/items/articles/${items[0]}/versions`, { key: 'v1', name: `${marker} version` });
  const slug = 'home';
  const page = await call('/api/v1/pages', { slug, title: `${marker} page`, status: 'published' });
  const release = await call('/api/v1/releases', { name: `${marker} release` });
  const role = await call('/api/v1/roles', { name: `${marker} role` });
  const policy = await call('/api/v1/policies', { name: `${marker} policy` });
  const team = await call('/api/v1/teams', { name: `${marker} team` });
  return {
    site,
    marker,
    item: items[0]!,
    page: page.id,
    slug,
    release: release.id,
    role: role.id,
    policy: policy.id,
    team: team.id,
    relation: relation.id,
    users,
  };
}

/** Builds both sites through the API: `main` (A) and `fuzzb` (B). */
export async function buildWorld(t: TestApp): Promise<FuzzWorld> {
  const root = await t.setup();
  await ok(t, root, 'main', 'POST', '/api/v1/sites', { id: 'fuzzb', name: 'Fuzz B' });
  const logins = new Map<string, { email: string; password: string; token: string }>();
  const user = async (key: string, roles: Record<string, string>) => {
    const email = `${key}@fuzz.example.com`;
    const token = await createUser(t, email, PASSWORD, roles);
    logins.set(key, { email, password: PASSWORD, token });
    return { token, id: await userId(t, token) };
  };
  const adminA = await user('adminA', { main: 'admin' });
  const viewerA = await user('viewerA', { main: 'viewer' });
  const adminB = await user('adminB', { fuzzb: 'admin' });
  const lowB = await user('lowB', { fuzzb: 'subscriber' });
  const a = await content(t, root, adminA.token, 'main', [adminA.id, viewerA.id]);
  const b = await content(t, root, adminB.token, 'fuzzb', [adminB.id, lowB.id]);
  return { instanceAdmin: root, a, b, logins };
}

/** The token of a fuzzed caller, renewed by a fresh login when a fuzzed request revoked it. */
export async function freshToken(t: TestApp, world: FuzzWorld, key: string): Promise<string> {
  const login = world.logins.get(key)!;
  const me = await t.call({ method: 'GET', url: '/api/v1/auth/me', as: login.token });
  if (me.statusCode !== 401) return login.token;
  const res = await t.call({
    method: 'POST',
    url: '/api/v1/auth/login',
    payload: { email: login.email, password: login.password },
  });
  if (res.statusCode === 200) login.token = res.json().data.token as string;
  return login.token;
}

const SNAPSHOT = [
  '/items/articles?limit=200&sort=id',
  '/pages?limit=200',
  '/roles',
  '/users',
  '/releases',
  '/policies',
  '/teams',
  '/collections',
  '/relations',
];

/** What site A holds, read by the instance admin: compared before and after other callers ran. */
export async function snapshotOf(t: TestApp, world: FuzzWorld, site: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const url of SNAPSHOT) {
    const res = await t.call({ method: 'GET', url: `/api/v1${url}`, as: world.instanceAdmin, site });
    out.set(url, `${res.statusCode} ${res.body}`);
  }
  return out;
}
