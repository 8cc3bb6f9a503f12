import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { lockDataDir } from '../../src/adapters/db/data-dir-lock.ts';

const run = promisify(execFile);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-lock-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const tryLockInChild = () =>
  run(process.execPath, [
    '--import',
    'tsx',
    '-e',
    `import('./src/adapters/db/data-dir-lock.ts').then((m) => { m.lockDataDir(${JSON.stringify(dir)}); console.log('locked'); })`,
  ]);

describe('data directory lock', () => {
  it('refuses a second process while the first holds the directory', async () => {
    const unlock = lockDataDir(dir);
    const err = await tryLockInChild().catch((e: { stderr: string }) => e);
    expect((err as { stderr: string }).stderr).toMatch(/in use by process \d+/);
    unlock();
    expect((await tryLockInChild()).stdout).toContain('locked');
  }, 60_000);

  it('takes over a lock left by a process that died', async () => {
    const dead = spawnSync('true').pid;
    fs.writeFileSync(path.join(dir, 'svc.lock'), String(dead));
    const unlock = lockDataDir(dir);
    expect(fs.readFileSync(path.join(dir, 'svc.lock'), 'utf8')).toBe(String(process.pid));
    unlock();
    expect(fs.existsSync(path.join(dir, 'svc.lock'))).toBe(false);
  });
});
