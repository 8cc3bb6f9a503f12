import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { openValue } from './envelope.ts';
import { loadKeyring } from '../../kernel/crypto/keyring.ts';

const PLACE = 'instance_settings:jwt_secret';

const KEY = randomBytes(32).toString('base64');
// No JWT_SECRET: the service makes its own signing key and keeps it in the database.
const env = (extra: Record<string, string | undefined>) =>
  ({ JWT_SECRET: undefined, ...extra }) as unknown as Record<string, string>;
const stored = async (t: TestApp) =>
  (
    await t.deps.database.owner
      .selectFrom('instance_settings')
      .select('value')
      .where('key', '=', 'jwt_secret')
      .executeTakeFirstOrThrow()
  ).value;
const me = (t: TestApp, token: string) => t.call({ method: 'GET', url: '/api/v1/auth/me', as: token });

describe('the generated JWT signing key', () => {
  const apps: TestApp[] = [];
  afterAll(() => Promise.all(apps.map((a) => a.close())));

  it('is stored sealed with the encryption key, and tokens survive a restart', async () => {
    const t = await createTestApp({ env: env({ ENCRYPTION_KEY: KEY }) });
    apps.push(t);
    const token = await t.setup();
    const value = await stored(t);
    expect(value).toMatchObject({ sealed: expect.stringMatching(/^v0:/) });
    await t.restart(env({ ENCRYPTION_KEY: KEY }));
    expect((await me(t, token)).statusCode).toBe(200);
  });

  it('stored in clear by an earlier start is sealed once a key is configured, without voiding tokens', async () => {
    const t = await createTestApp({ env: env({}) });
    apps.push(t);
    const token = await t.setup();
    const clear = await stored(t);
    expect(typeof clear).toBe('string');
    await t.restart(env({ ENCRYPTION_KEY: KEY }));
    const sealed = await stored(t);
    expect(sealed).toMatchObject({ sealed: expect.any(String) });
    expect(JSON.stringify(sealed)).not.toContain(clear as string);
    expect((await me(t, token)).statusCode).toBe(200);
  });

  it('is sealed anew when the active key changes, and replaced when its key is gone', async () => {
    // No account yet, so no subject key is wrapped under v1 and a start without v1 is allowed (with accounts it is
    // refused: src/platform/privacy/subject-keys.int.test.ts).
    const t = await createTestApp({ env: env({ ENCRYPTION_KEY: KEY }) });
    apps.push(t);
    const next = randomBytes(32).toString('base64');
    const ring = loadKeyring({ ENCRYPTION_KEY: KEY, ENCRYPTION_KEY_V1: next, ENCRYPTION_ACTIVE_KEY_ID: 'v1' });
    const secret = async () => openValue(ring, ((await stored(t)) as { sealed: string }).sealed, PLACE);
    const first = await secret();
    expect(first).toEqual(expect.any(String));
    await t.restart(env({ ENCRYPTION_KEY: KEY, ENCRYPTION_KEY_V1: next, ENCRYPTION_ACTIVE_KEY_ID: 'v1' }));
    expect(await stored(t)).toMatchObject({ sealed: expect.stringMatching(/^v1:/) });
    expect(await secret()).toBe(first);
    await t.restart(env({ ENCRYPTION_KEY: KEY }));
    expect(await stored(t)).toMatchObject({ sealed: expect.stringMatching(/^v0:/) });
    expect(await secret()).not.toBe(first);
  });
});
