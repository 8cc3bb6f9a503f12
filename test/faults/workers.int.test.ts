import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { loginTo, processStore } from '../support/process-store.ts';
import { startServer, type ServerProcess } from '../support/server-process.ts';

const ADMIN = { email: 'workers@example.com', password: 'Two-processes-pass-1234' };

describe('SVC_WORKERS', () => {
  it('refuses several processes without PostgreSQL and Redis, which they share', () => {
    expect(() => loadConfig({ SVC_WORKERS: '2' })).toThrow(/SVC_WORKERS/);
    expect(() => loadConfig({ SVC_WORKERS: '2', DATABASE_URL: 'postgres://x@127.0.0.1/x' })).toThrow(/REDIS_URL/);
    const two = { SVC_WORKERS: '2', DATABASE_URL: 'postgres://x@h/x', REDIS_URL: 'redis://h' };
    expect(loadConfig(two).SVC_WORKERS).toBe(2);
    // Each process would make (and log) a setup token of its own, and a request reaches one of them at random.
    expect(() => loadConfig({ ...two, SVC_REQUIRE_SETUP_TOKEN: 'true' })).toThrow(/SVC_SETUP_TOKEN/);
    expect(loadConfig({ ...two, SVC_REQUIRE_SETUP_TOKEN: 'true', SVC_SETUP_TOKEN: 's'.repeat(32) }).SVC_WORKERS).toBe(
      2,
    );
  });
});

/**
 * Two server processes behind one port (node:cluster) on one PostgreSQL schema: a schema change made through one
 * is known to the other at once (its memory of the schema's version is moved on by NOTIFY), and SIGTERM ends both.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL || !process.env.TEST_REDIS_URL)('two server processes', () => {
  const store = processStore('workers');
  let server: ServerProcess | null = null;
  afterAll(async () => {
    if (server?.child.exitCode === null) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    await store.drop();
  });

  it('share schema changes at once and stop together', async () => {
    await store.create();
    server = await startServer({
      ...store.env(),
      REDIS_URL: process.env.TEST_REDIS_URL!,
      REDIS_KEY_PREFIX: `w${randomBytes(4).toString('hex')}:`,
      SVC_WORKERS: '2',
      SVC_ADMIN_EMAIL: ADMIN.email,
      SVC_ADMIN_PASSWORD: ADMIN.password,
      SVC_SITE_ID: 'main',
      LOG_LEVEL: 'info',
    });
    // /health answers with the first process; the second starts after it.
    for (let i = 0; i < 300 && !server.output().includes('listening with several processes'); i++)
      await new Promise((r) => setTimeout(r, 100));
    const token = await loginTo(server, ADMIN);
    // A connection of its own per request (no keep-alive), so that requests reach both processes in turn.
    const call = (method: string, p: string, body?: unknown) =>
      new Promise<number>((resolve, reject) => {
        const req = http.request(
          `${server!.url}${p}`,
          {
            method,
            agent: false,
            headers: {
              authorization: `Bearer ${token}`,
              'x-svc-site': 'main',
              ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode!));
          },
        );
        req.on('error', reject);
        req.end(body === undefined ? undefined : JSON.stringify(body));
      });
    expect(await call('POST', '/api/v1/collections', { name: 'posts' })).toBe(201);
    // Both processes read (and keep) the schema as it is now: connections go round robin.
    for (let i = 0; i < 10; i++) expect(await call('GET', '/api/v1/items/posts')).toBe(200);
    expect(await call('POST', '/api/v1/fields/posts', { field: 'title', type: 'string' })).toBe(201);
    // Right away, well inside SVC_VERSION_CACHE_MS: a process that missed the change would refuse the field.
    const created = [];
    for (let i = 0; i < 10; i++) created.push(await call('POST', '/api/v1/items/posts', { title: `t${i}` }));
    expect(created).toEqual(Array(10).fill(201));

    const workers = [...server.output().matchAll(/"pid":(\d+)[^\n]*Server listening/g)].map((m) => Number(m[1]));
    expect(new Set(workers).size).toBe(2);
    // A worker that dies is started again (after a second); a stop in that second starts none and ends all.
    process.kill(workers[1]!, 'SIGKILL');
    for (let i = 0; i < 100 && !server.output().includes('a worker ended; starting another'); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(server.output()).toContain('a worker ended; starting another');
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    await new Promise((r) => setTimeout(r, 1500));
    expect([...server.output().matchAll(/Server listening/g)]).toHaveLength(2);
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    expect(workers.filter(alive)).toEqual([]);
  }, 120_000);
});
