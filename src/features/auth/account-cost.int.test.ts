import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { passwordWork } from './passwords.ts';

let t: TestApp;
let admin: string;
const PASSWORD = 'Account-cost-4455!';

const outboxSize = async () =>
  (await t.call({ method: 'GET', url: '/api/v1/admin/outbox?limit=200', as: admin })).json().data.length as number;

/**
 * The work one request does, counted where it is done: password hashes, commits to the log, mails written.
 * Timing never goes into a test; these counts are what timing would reveal, and they do not flake.
 */
async function workOf(url: string, payload: object) {
  let commits = 0;
  const stop = t.deps.store.onAppended(() => void (commits += 1));
  const hashes = passwordWork.hashes;
  const mails = await outboxSize();
  const res = await t.call({ method: 'POST', url, payload, site: 'main' });
  stop();
  return {
    status: res.statusCode,
    body: res.body,
    hashes: passwordWork.hashes - hashes,
    commits,
    mails: (await outboxSize()) - mails,
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
  it('does the same work for a known address as for a new one: one hash, one commit, one mail', async () => {
    const known = await workOf('/api/v1/auth/register', { email: ADMIN.email, password: PASSWORD });
    const fresh = await workOf('/api/v1/auth/register', { email: 'cost-new@example.com', password: PASSWORD });
    expect(fresh).toMatchObject({ status: 202, hashes: 1, commits: 1, mails: 1 });
    expect(known).toEqual(fresh);
  });
});

describe('POST /api/v1/auth/forgot-password', () => {
  it('answers and mails alike for a known and an unknown address', async () => {
    const known = await workOf('/api/v1/auth/forgot-password', { email: ADMIN.email });
    const unknown = await workOf('/api/v1/auth/forgot-password', { email: 'nobody-here@example.com' });
    expect(unknown).toMatchObject({ status: 202, hashes: 0, mails: 1, body: known.body });
    expect(known).toMatchObject({ status: 202, hashes: 0, mails: 1 });
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
    const pending = await workOf('/api/v1/auth/resend-verification', { email: 'cost-pending@example.com' });
    const verified = await workOf('/api/v1/auth/resend-verification', { email: ADMIN.email });
    const unknown = await workOf('/api/v1/auth/resend-verification', { email: 'nobody-else@example.com' });
    expect(pending).toMatchObject({ status: 202, hashes: 0, commits: 0, mails: 1 });
    expect(verified).toEqual(pending);
    expect(unknown).toEqual(pending);
  });
});
