import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellBlocks, walkthrough } from '../../scripts/readme-blocks.ts';
import { processStore } from '../support/process-store.ts';
import { startServer, type ServerProcess } from '../support/server-process.ts';

/**
 * The README's shell examples, in order, as one bash script against a fresh instance (a real server process, on the
 * embedded database, or PostgreSQL with TEST_DATABASE_URL): an example that breaks fails here.
 */
const root = path.resolve(import.meta.dirname, '../..');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
const store = processStore('readme');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-readme-'));
let server: ServerProcess;
/** Where the file import's example fetches from (SOURCE): beach.jpg on a local address. */
let source: Server;
let sourceUrl: string;

beforeAll(async () => {
  await store.create();
  // The files the examples upload, as a reader would have them in the current directory.
  await sharp({ create: { width: 64, height: 64, channels: 3, background: '#336699' } })
    .png()
    .toFile(path.join(work, 'logo.png'));
  await sharp({ create: { width: 800, height: 600, channels: 3, background: '#e0c080' } })
    .jpeg()
    .toFile(path.join(work, 'beach.jpg'));
  // `npx svc` as in the service's checkout (npx runs the package's own bin there), without writing into the checkout.
  fs.mkdirSync(path.join(work, 'node_modules/.bin'), { recursive: true });
  fs.symlinkSync(path.join(root, 'bin/svc.mjs'), path.join(work, 'node_modules/.bin/svc'));
  source = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'image/jpeg' }).end(fs.readFileSync(path.join(work, 'beach.jpg'))),
  );
  await new Promise<void>((r) => source.listen(0, '127.0.0.1', r));
  sourceUrl = `http://127.0.0.1:${(source.address() as AddressInfo).port}/beach.jpg`;
  server = await startServer(
    { ...store.env(), SVC_FILES_DIR: path.join(work, 'files'), SVC_FILE_IMPORT_ALLOW_PRIVATE: 'true' },
    180_000,
  );
}, 240_000);

afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.exited;
  source?.close();
  await store.drop();
  fs.rmSync(work, { recursive: true, force: true });
});

function bash(script: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], { cwd: work, env: { ...process.env, ...env } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => resolve({ code, out }));
  });
}

describe('README.md', () => {
  it('marks every block it does not run with the reason, and runs every curl so that a wrong status fails', () => {
    const blocks = shellBlocks(readme);
    expect(blocks[0]!.text).toMatch(/npm install && npm start/);
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: object };
    expect(Object.keys(pkg.scripts)).toEqual(expect.arrayContaining(['start', 'test']));
    for (const b of blocks.slice(1).filter((x) => x.skip === null)) {
      // A curl either fails on an HTTP error (-f) or goes through `expect`, which checks the status it was given.
      const code = b.text
        .split('\n')
        .filter((l) => !l.trimStart().startsWith('#'))
        .join('\n');
      const calls = code.match(/(^|[^-\w])(expect \d{3} )?curl( -\S+)*/gm) ?? [];
      for (const c of calls) expect(c, `README.md:${b.line}: ${c}`).toMatch(/expect \d{3} curl|curl -\S*f/);
      expect(b.text, `README.md:${b.line}: a literal date goes stale`).not.toMatch(/"20\d\d-\d\d-\d\d/);
      expect(b.text, `README.md:${b.line}: -OJ overwrites the reader's files`).not.toMatch(/-O/);
    }
  });

  it('runs every shell example in order against a fresh instance', async () => {
    const { code, out } = await bash(walkthrough(readme), { BASE: server.url, SOURCE: sourceUrl });
    expect(code, out.slice(-6000)).toBe(0);
  }, 180_000);
});
