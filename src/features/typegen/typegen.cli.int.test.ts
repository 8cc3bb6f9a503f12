import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { runTypegenCli } from './typegen.cli.ts';

let t: TestApp;
let admin: string;
let url: string;
let dir: string;

const run = async (args: string[], env: Record<string, string> = {}) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runTypegenCli(args, {
    fetch: globalThis.fetch,
    env,
    cwd: dir,
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  return { code, out, err };
};

/** `npx svc …` as a user runs it: the bin shim, in a process of its own. */
const svc = (args: string[], env: Record<string, string>) =>
  new Promise<{ code: number | null; output: string }>((done) => {
    const child = spawn(process.execPath, [resolve('bin/svc.mjs'), ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('exit', (code) => done({ code, output }));
  });

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  const post = (url: string, payload: object) => t.call({ method: 'POST', url, payload, as: admin, site: 'main' });
  await post('/api/v1/collections', { name: 'authors' });
  await post('/api/v1/collections', { name: 'articles' });
  await post('/api/v1/fields/authors', { field: 'name', type: 'string', required: true });
  await post('/api/v1/fields/articles', { field: 'title', type: 'string', required: true });
  await post('/api/v1/fields/articles', { field: 'author', type: 'string' });
  await post('/api/v1/relations', { kind: 'm2o', collection: 'articles', field: 'author', target: 'authors' });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  dir = await mkdtemp(join(tmpdir(), 'svc-typegen-cli-'));
});
afterAll(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

describe('svc typegen', () => {
  it('writes one file of the site types to --out', async () => {
    const res = await run(['--site', 'main', '--out', 'src/cms.d.ts', '--auth', admin, '--url', url]);
    expect(res).toMatchObject({ code: 0, err: [] });
    expect(res.out).toEqual([`wrote ${join(dir, 'src/cms.d.ts')} (3 collections)`]);
    const src = await readFile(join(dir, 'src/cms.d.ts'), 'utf8');
    expect(src).toContain('export interface Articles {');
    expect(src).toContain('  author?: AuthorsId | null;');
    expect(src).toContain('export type AuthorsId = string & { readonly __brand: "AuthorsId" };');
  });

  it('writes a file per collection under --out, with the token from SVC_TOKEN and branding off', async () => {
    const args = ['--site=main', '--out', 'types', '--format', 'per-collection', '--include', 'articles,authors'];
    const res = await run([...args, '--url', url, '--no-branded'], { SVC_TOKEN: admin });
    expect(res.code).toBe(0);
    expect((await readdir(join(dir, 'types'))).sort()).toEqual(['_common.ts', 'articles.ts', 'authors.ts', 'index.ts']);
    expect(await readFile(join(dir, 'types/authors.ts'), 'utf8')).toContain('export type AuthorsId = string;');
    const again = await run([...args, '--url', url, '--branded=false', '--exclude', 'authors'], { SVC_TOKEN: admin });
    expect(again.code).toBe(0);
    expect(await readFile(join(dir, 'types/index.ts'), 'utf8')).not.toContain('Authors');
  });

  it('exits 2 with a one-line reason and the usage on bad flags, before any request', async () => {
    const cases = [
      ['--out', 'x.ts'],
      ['--site', 'main'],
      ['--site', 'main', '--out', 'x.ts', '--format', 'flat'],
      ['--site', 'main', '--out', 'x.ts', '--branded=maybe'],
      ['--site', 'main', '--out', 'x.ts', '--url', 'ftp://example.com'],
      ['--site', 'main', '--out', 'x.ts', '--colour'],
      ['--site', 'main', '--out', 'x.ts', 'stray'],
    ];
    for (const args of cases) {
      const res = await run(args);
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.err[0], args.join(' ')).toMatch(/^svc typegen: [^\n]+$/);
      expect(res.err[1]).toMatch(/^usage: svc typegen/);
    }
  });

  it('exits 1 with one line naming the answer when the service refuses', async () => {
    const bad = await run(['--site', 'main', '--out', 'x.ts', '--auth', 'nonsense', '--url', url]);
    expect(bad.code).toBe(1);
    expect(bad.err).toHaveLength(1);
    expect(bad.err[0]).toMatch(/^svc typegen: HTTP 401 /);
    const unknown = await run(['--site', 'main', '--out', 'x.ts', '--include', 'nope', '--auth', admin, '--url', url]);
    expect(unknown.err).toEqual([
      "svc typegen: HTTP 400 VALIDATION_FAILED: include names nope, which is not a collection of this site's schema (at query.include.0)",
    ]);
    const site = await run(['--site', 'nowhere', '--out', 'x.ts', '--auth', admin, '--url', url]);
    expect(site.err[0]).toMatch(/^svc typegen: HTTP 404 SITE_NOT_FOUND/);
    const down = await run(['--site', 'main', '--out', 'x.ts', '--url', 'http://127.0.0.1:9']);
    expect(down.code).toBe(1);
    expect(down.err).toHaveLength(1);
  });

  it('runs as `npx svc typegen` through the bin shim, without a database', async () => {
    const env = { SVC_TOKEN: admin, DATABASE_URL: 'postgres://nobody@127.0.0.1:9/none' };
    const ok = await svc(['typegen', '--site', 'main', '--out', 'bin-out.ts', '--url', url], env);
    expect(ok.code, ok.output).toBe(0);
    expect(await readFile(join(dir, 'bin-out.ts'), 'utf8')).toContain('export interface Schema {');
    const bad = await svc(['typegen', '--site', 'main'], env);
    expect(bad.code).toBe(2);
    expect((await svc([], env)).code).toBe(2);
  }, 60_000);
});
