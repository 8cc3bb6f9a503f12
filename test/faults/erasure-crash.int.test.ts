import { afterAll, describe, expect, it } from 'vitest';
import { startServer, type ServerProcess } from '../support/server-process.ts';
import { loginTo, processStore } from '../support/process-store.ts';

/**
 * SIGKILL while a person is erased, then a restart: the erasure is complete, or asking for it again completes the
 * same erasure (each step finds its work done or does it); either way the person can no longer sign in, the site
 * lists one complete erasure of them, and a further request answers 409.
 */
const ADMIN = { email: 'privacy-officer@example.com', password: 'Kill-erase-pass-1234' };
const PERSON = { email: 'subject@example.com', password: 'Lovelace-pass-1618!x' };
const store = processStore('erasecrash');
const serverEnv = () => ({
  ...store.env(),
  SVC_ADMIN_EMAIL: ADMIN.email,
  SVC_ADMIN_PASSWORD: ADMIN.password,
  SVC_SITE_ID: 'main',
  // Many sessions to revoke, so the erasure has many steps for the kill to fall between.
  SVC_LOGIN_MAX_PER_IP: '1000',
});
afterAll(() => store.drop());

const client = (server: ServerProcess, token: string | null) => (method: string, path: string, body?: unknown) =>
  fetch(`${server.url}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      'x-svc-site': 'main',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe('SIGKILL during an erasure', () => {
  it('leaves an erasure that is complete or completes when asked again', async () => {
    await store.create();
    const server = await startServer(serverEnv());
    const call = client(server, await loginTo(server, ADMIN));
    const made = await call('POST', '/api/v1/users', { ...PERSON, roleKey: 'editor' });
    expect(made.status).toBe(201);
    const userId = ((await made.json()) as { data: { id: string } }).data.id;
    // Sessions to revoke, so the erasure has several steps to be cut in.
    for (let i = 0; i < 40; i++) await loginTo(server, PERSON);
    const sent = call('POST', '/api/v1/admin/erasure', { userId, reason: 'Art. 17' }).catch(() => null);
    await new Promise((r) => setTimeout(r, 25));
    server.child.kill('SIGKILL');
    await server.exited;
    await sent;

    const again = await startServer(serverEnv());
    try {
      const call2 = client(again, await loginTo(again, ADMIN));
      const retry = await call2('POST', '/api/v1/admin/erasure', { userId, reason: 'Art. 17, again' });
      // 200: the first was cut short and this request completed it; 201: the first never began (killed before
      // its ErasureStarted); 409: the first had finished.
      expect([200, 201, 409]).toContain(retry.status);
      const third = await call2('POST', '/api/v1/admin/erasure', { userId, reason: 'Art. 17, third' });
      expect(third.status).toBe(409);
      // One erasure of the person, complete: never a second one beside an orphan.
      const listed = (await (await call2('GET', '/api/v1/admin/erasure?limit=200')).json()) as {
        data: { subjectId: string; status: string }[];
      };
      expect(listed.data.filter((e) => e.subjectId === userId)).toEqual([
        expect.objectContaining({ status: 'completed' }),
      ]);
      const login = await fetch(`${again.url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(PERSON),
      });
      expect(login.status).toBe(401);
    } finally {
      again.child.kill('SIGTERM');
      await again.exited;
    }
  }, 120_000);
});
