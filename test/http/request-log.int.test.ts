import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginTo, processStore } from '../support/process-store.ts';
import { startServer, type ServerProcess } from '../support/server-process.ts';

const ADMIN = { email: 'logs@example.com', password: 'Request-log-pass-1234' };
const store = processStore('reqlog');
let server: ServerProcess;

beforeAll(async () => {
  await store.create();
  server = await startServer({
    ...store.env(),
    SVC_ADMIN_EMAIL: ADMIN.email,
    SVC_ADMIN_PASSWORD: ADMIN.password,
    SVC_SITE_ID: 'main',
    LOG_LEVEL: 'info',
  });
}, 90_000);
afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.exited;
  await store.drop();
});

const lines = () =>
  server
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('request logging at info', () => {
  it('writes one line per request (method, url, status, time, request id) and no credentials', async () => {
    const token = await loginTo(server, ADMIN);
    const requestId = 'log-probe-0001';
    const res = await fetch(`${server.url}/api/v1/site`, {
      headers: { authorization: `Bearer ${token}`, 'x-svc-site': 'main', 'x-request-id': requestId },
    });
    expect(res.status).toBe(200);
    let mine: Record<string, unknown>[] = [];
    for (let i = 0; i < 50 && !mine.length; i++) {
      await new Promise((r) => setTimeout(r, 100));
      mine = lines().filter((l) => l.reqId === requestId);
    }
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      level: 30,
      msg: 'request completed',
      method: 'GET',
      url: '/api/v1/site',
      statusCode: 200,
      responseTime: expect.any(Number),
    });
    expect(server.output()).not.toContain(token);
    // The login's password never reaches the log either.
    expect(server.output()).not.toContain(ADMIN.password);
  });
});
