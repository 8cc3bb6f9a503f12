import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '../support/server-process.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-term-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

// Embedded mode only: the behaviour under test is the process's, not the database's.
describe('SIGTERM', () => {
  it('finishes the request in flight, then exits 0 and releases the data directory', async () => {
    const server = await startServer({ SVC_DATA_DIR: dir, DATABASE_URL: '', LOG_LEVEL: 'info' });
    // Setup hashes a password (argon2id), so it is still running when the signal arrives.
    const inFlight = fetch(`${server.url}/api/v1/setup/complete`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        siteId: 'main',
        siteName: 'Main',
        email: 'term@example.com',
        password: 'Graceful-exit-42!',
      }),
    });
    // The signal goes once the server has logged the request (one that arrives after it is refused with 503,
    // rightly), while the setup's own work (argon2 and the first writes) is still running.
    const deadline = Date.now() + 20_000;
    while (!server.output().includes('/api/v1/setup/complete') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 5));
    // The body is read after the request line is logged; give the handler a moment to begin.
    await new Promise((r) => setTimeout(r, 60));
    server.child.kill('SIGTERM');
    const res = await inFlight;
    expect(res.status).toBe(201);
    expect(await server.exited).toBe(0);
    expect(fs.existsSync(path.join(dir, 'svc.lock'))).toBe(false);

    const again = await startServer({ SVC_DATA_DIR: dir, DATABASE_URL: '' });
    const login = await fetch(`${again.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'term@example.com', password: 'Graceful-exit-42!' }),
    });
    expect(login.status).toBe(200);
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
  }, 120_000);
});
