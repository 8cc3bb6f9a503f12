import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { passwordWork } from './passwords.ts';

let t: TestApp;
let admin: string;
const PASSWORD = 'Account-cost-4455!';

const outboxSize = async () =>
  (await t.call({ method: 'GET', url: '/api/v1/admin/outbox?limit=200', as: admin })).json().data.length as number;

/**
 * The work one request does before its answer, counted where it is done: password hashes, commits to the log, mails
 * written; then the work it left for after the answer (held until the answer is in, then settled). Timing never goes
 * into a test; these counts are what timing would reveal, and they do not flake.
 */
async function workOf(url: string, payload: object, as?: string) {
  let commits = 0;
  const stop = t.deps.store.onAppended(() => void (commits += 1));
  const hashes = passwordWork.hashes;
  const mails = await outboxSize();
  const release = t.deps.afterAnswer.hold();
  const res = await t.call({ method: 'POST', url, payload, site: 'main', as });
  const answered = { hashes: passwordWork.hashes - hashes, commits, mails: (await outboxSize()) - mails };
  release();
  await t.deps.afterAnswer.settled();
  stop();
  return {
    status: res.statusCode,
    body: res.body,
    answered,
    after: { hashes: passwordWork.hashes - hashes, commits, mails: (await outboxSize()) - mails },
  };
}

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await t.call({
    method: 'PATCH',
    url: '/api/v1/site',
    as: admin,
    site: 'main',
    payload: { settings: { public_registration: true } },
  });
});
afterAll(() => t.close());

describe('POST /api/v1/auth/register', () => {
  it('answers a known and a new address after the same work (one hash), and commits and mails only after', async () => {
    const known = await workOf('/api/v1/auth/register', { email: ADMIN.email, password: PASSWORD });
    const fresh = await workOf('/api/v1/auth/register', { email: 'cost-new@example.com', password: PASSWORD });
    expect(fresh).toMatchObject({
      status: 202,
      answered: { hashes: 1, commits: 0, mails: 0 },
      after: { hashes: 1, commits: 1, mails: 1 },
    });
    expect(known).toEqual(fresh);
  });
});

describe('POST /api/v1/auth/forgot-password', () => {
  it('answers and mails alike for a known and an unknown address', async () => {
    const known = await workOf('/api/v1/auth/forgot-password', { email: ADMIN.email });
    const unknown = await workOf('/api/v1/auth/forgot-password', { email: 'nobody-here@example.com' });
    const nothingYet = { hashes: 0, commits: 0, mails: 0 };
    expect(unknown).toMatchObject({ status: 202, body: known.body, answered: nothingYet, after: { mails: 1 } });
    // A known address also records the request (RequestPasswordReset); that commit, too, comes after the answer.
    expect(known).toMatchObject({ status: 202, answered: nothingYet, after: { hashes: 0, commits: 1, mails: 1 } });
  });
});

describe('POST /api/v1/auth/resend-verification', () => {
  it('answers and mails alike for an unverified, a verified and an unknown address', async () => {
    await t.call({
      method: 'POST',
      url: '/api/v1/auth/register',
      payload: { email: 'cost-pending@example.com', password: PASSWORD },
      site: 'main',
    });
    await t.deps.afterAnswer.settled();
    const pending = await workOf('/api/v1/auth/resend-verification', { email: 'cost-pending@example.com' });
    const verified = await workOf('/api/v1/auth/resend-verification', { email: ADMIN.email });
    const unknown = await workOf('/api/v1/auth/resend-verification', { email: 'nobody-else@example.com' });
    expect(pending).toMatchObject({
      status: 202,
      answered: { hashes: 0, commits: 0, mails: 0 },
      after: { hashes: 0, commits: 0, mails: 1 },
    });
    expect(verified).toEqual(pending);
    expect(unknown).toEqual(pending);
  });
});

describe('POST /api/v1/users/invite', () => {
  it('answers an existing account and a new address after the same work, the identity and mail after', async () => {
    await t.call({ method: 'POST', url: '/api/v1/sites', as: admin, payload: { id: 'cost-other', name: 'Other' } });
    const made = await t.call({
      method: 'POST',
      url: '/api/v1/users',
      as: admin,
      site: 'cost-other',
      payload: { email: 'cost-member@example.com', password: PASSWORD, roleKey: 'viewer' },
    });
    expect(made.statusCode).toBe(201);
    const known = await workOf('/api/v1/users/invite', { email: 'cost-member@example.com', roleKey: 'viewer' }, admin);
    const fresh = await workOf('/api/v1/users/invite', { email: 'cost-invited@example.com', roleKey: 'viewer' }, admin);
    expect(fresh).toMatchObject({
      status: 202,
      answered: { hashes: 0, commits: 0, mails: 0 },
      after: { hashes: 0, commits: 1, mails: 1 },
    });
    expect(known.answered).toEqual(fresh.answered);
    expect(known.after).toEqual(fresh.after);
  });
});
