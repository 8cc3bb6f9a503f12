import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cli-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

// The CLI opens its own embedded database; on PostgreSQL the same code path is covered by the HTTP rebuild tests.
describe('npm run svc -- projections', () => {
  const cli = (...args: string[]) =>
    run(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
      env: { ...process.env, SVC_DATA_DIR: dir, DATABASE_URL: '' },
      timeout: 90_000,
    });

  it('rebuilds a projection by name', async () => {
    const { stdout } = await cli('projections', 'rebuild', 'sites');
    expect(stdout).toMatch(/rebuilt sites v1 in \d+ ms/);
  }, 120_000);

  it('names the known projections when given an unknown one, and exits 2', async () => {
    const err = await cli('projections', 'rebuild', 'nope').catch((e: { code: number; stderr: string }) => e);
    expect(err).toMatchObject({ code: 2 });
    expect((err as { stderr: string }).stderr).toContain('known: ');
  }, 120_000);
});
