import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { processStore } from '../support/process-store.ts';
import { startServer, type ServerProcess } from '../support/server-process.ts';

/**
 * `npm start` runs compiled code (scripts/build.mjs, scripts/start.mjs): the build, into a folder of its own that holds
 * nothing of the checkout but node_modules, is a server that starts without a TypeScript loader and answers.
 */
const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const out = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-build-'));
fs.symlinkSync(path.join(root, 'node_modules'), path.join(out, 'node_modules'));
const store = processStore('compiled');
let server: ServerProcess | undefined;

afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.exited;
  await store.drop();
  fs.rmSync(out, { recursive: true, force: true });
});

describe('the compiled server', () => {
  it('builds into a folder, starts from it with plain node and answers /health and the API', async () => {
    const built = await run(process.execPath, ['scripts/build.mjs', out], { cwd: root });
    expect(built.stdout).toMatch(/^built .* in \d+ ms$/m);
    // Our own modules are inside the build (the entry and its chunks); what they import besides each other are
    // packages and node: built-ins.
    const chunks = fs.readdirSync(path.join(out, 'chunks')).filter((f) => f.endsWith('.mjs'));
    for (const file of ['main.mjs', ...chunks.map((c) => `chunks/${c}`)]) {
      const code = fs.readFileSync(path.join(out, file), 'utf8');
      // (Template strings of generated code, such as typegen's `./${name}.js`, are not imports.)
      const own = [...code.matchAll(/(?:from|import\(|import) *["'](\.{1,2}\/[^"'$]+)["']/g)].map((m) => m[1]!);
      for (const spec of own)
        expect([file, fs.existsSync(path.resolve(path.dirname(path.join(out, file)), spec))]).toEqual([file, true]);
      expect(code).not.toMatch(/["']tsx["']/);
      expect(code).not.toMatch(/["'][^"']*\/src\/[^"']*\.ts["']/);
    }

    await store.create();
    server = await startServer(store.env(), 120_000, [path.join(out, 'main.mjs')]);
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });
    const openapi = await fetch(`${server.url}/api/v1/openapi.json`);
    expect(openapi.status).toBe(200);
    expect(Object.keys(((await openapi.json()) as { paths: object }).paths).length).toBeGreaterThan(50);

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    server = undefined;
  }, 180_000);

  it('is built by `npm start` in the process that then serves, which keeps no esbuild process beside it', async () => {
    const { build } = (await import(path.join(root, 'scripts/build.mjs'))) as {
      build(outdir: string): Promise<unknown>;
    };
    const again = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-build-'));
    try {
      await build(again);
      // A child that was killed and not yet reaped (state Z) holds no memory.
      const children = execFileSync('ps', ['-o', 'stat=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
      expect(children.split('\n').filter((line) => /esbuild/.test(line) && !/^Z/.test(line.trim()))).toEqual([]);
    } finally {
      fs.rmSync(again, { recursive: true, force: true });
    }
  });
});
