import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { legacyAddressHash } from '../../contracts/auth/address-hash.ts';
import { emailClaimStream } from '../../contracts/auth/user.events.ts';

let t: TestApp;
let admin: string;
const PASSWORD = 'Address-pass-5566!';

/** Signs up, then waits for the outcome the answer does not wait for. */
async function register(email: string) {
  const res = await t.call({
    method: 'POST',
    url: '/api/v1/auth/register',
    payload: { email, password: PASSWORD },
    site: 'main',
  });
  await t.deps.afterAnswer.settled();
  return res;
}
const mailsTo = async (to: string) =>
  (await t.call({ method: 'GET', url: `/api/v1/admin/outbox?to=${encodeURIComponent(to)}`, as: admin })).json()
    .data as { kind: string }[];
const claimStreams = async () =>
  (
    await sql<{ stream_id: string }>`select stream_id from events where type = 'EmailClaimed'`.execute(
      t.deps.database.owner,
    )
  ).rows.map((r) => r.stream_id);

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

describe('email claims', () => {
  it('name claim streams and the setup claim by a keyed hash, never the plain SHA-256 of the address', async () => {
    expect((await register('keyed@example.com')).statusCode).toBe(202);
    const streams = await claimStreams();
    expect(streams).toContain(emailClaimStream(t.deps.addresses.hash('keyed@example.com')));
    expect(streams).not.toContain(emailClaimStream(legacyAddressHash('keyed@example.com')));
    expect(streams).not.toContain(emailClaimStream(legacyAddressHash(ADMIN.email)));
    const setup = await sql<{
      h: string;
    }>`select data->>'emailHash' as h from events where type = 'SetupStarted'`.execute(t.deps.database.owner);
    expect(setup.rows[0]!.h).toBe(t.deps.addresses.hash(ADMIN.email));
    expect(setup.rows[0]!.h).not.toBe(legacyAddressHash(ADMIN.email));
  });

  it('keep the same key across restarts, so an address claimed before a restart stays taken', async () => {
    const before = t.deps.addresses.hash('keyed@example.com');
    await t.restart();
    expect(t.deps.addresses.hash('keyed@example.com')).toBe(before);
    admin = (await t.call({ method: 'POST', url: '/api/v1/auth/login', payload: ADMIN })).json().data.token;
  });

  it('still refuse an address that an older log claimed under the unkeyed name', async () => {
    const email = 'legacy@example.com';
    await t.deps.store.append(
      emailClaimStream(legacyAddressHash(email)),
      [
        {
          type: 'EmailClaimed',
          data: { userId: 'legacy-user', at: '2025-01-01T00:00:00.000Z' },
          metadata: {
            siteId: '_system',
            actor: { type: 'system', id: 'test' },
            correlationId: 'legacy',
            causationId: null,
            requestId: null,
            occurredAt: '2025-01-01T00:00:00.000Z',
          },
        },
      ],
      { expectedVersion: 'no_stream' },
    );
    expect((await register(email)).statusCode).toBe(202);
    expect(await claimStreams()).not.toContain(emailClaimStream(t.deps.addresses.hash(email)));
    expect((await mailsTo(email)).map((m) => m.kind)).not.toContain('verify-email');
    const created = await t.call({
      method: 'POST',
      url: '/api/v1/users',
      as: admin,
      site: 'main',
      payload: { email, password: PASSWORD, roleKey: 'viewer' },
    });
    // The claimed address has no account to add or invite: the answer of any invitation, and nothing else.
    expect(created.statusCode).toBe(202);
    expect(await claimStreams()).not.toContain(emailClaimStream(t.deps.addresses.hash(email)));
  });
});
