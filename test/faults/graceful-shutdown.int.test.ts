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
    const server = await startServer({ SVC_DATA_DIR: dir, DATABASE_URL: '' });
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
    // Long enough for the request to reach the server on a loaded machine (a request that arrives after the signal
    // is refused with 503, rightly), short of the setup's own work (argon2 and the first writes).
    await new Promise((r) => setTimeout(r, 120));
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
