import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVER_BUILD } from '../support/server-build.ts';

/** The packages an unconfigured adapter would load: none may be reached without a dynamic `import()`. */
const OPTIONAL = ['ioredis', '@aws-sdk/client-s3', '@eventstore/db-client', 'nodemailer', '@electric-sql/pglite'];

/** Every module a compiled file loads at start (static imports, followed through the build's own chunks). */
function staticGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const text = fs.readFileSync(file, 'utf8');
    for (const m of text.matchAll(/^import\s+(?:[^'"]*?\s+from\s+)?["']([^"']+)["'];?$/gms)) {
      const spec = m[1]!;
      if (spec.startsWith('.')) visit(path.resolve(path.dirname(file), spec));
      else packages.add(spec);
    }
  };
  visit(entry);
  return { files, packages };
}

describe('the compiled server', () => {
  it('loads no optional service client at start: each comes with its adapter, when the configuration picks it', () => {
    const { files, packages } = staticGraph(path.join(SERVER_BUILD, 'main.mjs'));
    expect(files.size).toBeGreaterThan(1);
    expect([...packages].some((p) => p === 'fastify')).toBe(true);
    const loaded = [...packages].filter((p) => OPTIONAL.some((o) => p === o || p.startsWith(`${o}/`)));
    expect(loaded).toEqual([]);
    // …and each is still in the build, in a chunk of its own that a dynamic import reaches.
    const chunks = fs.readdirSync(path.join(SERVER_BUILD, 'chunks')).filter((f) => f.endsWith('.mjs'));
    const all = chunks.map((f) => fs.readFileSync(path.join(SERVER_BUILD, 'chunks', f), 'utf8')).join('\n');
    for (const o of OPTIONAL) expect([o, all.includes(`from "${o}`)]).toEqual([o, true]);
  });
});
