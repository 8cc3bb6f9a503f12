// The service's build: esbuild bundles our own TypeScript (src/, projections/) into dist/main.mjs (the server) and
// dist/cli.mjs (`npx svc`), with what they load on demand in dist/chunks/; every package stays an import of node_modules (native addons, PGlite's wasm and data files
// load from where npm put them). Types are tsc's job (`npm run typecheck`); esbuild only strips them.
//
// `node scripts/build.mjs [outdir]` builds (npm's postinstall and `npm run build`). `ensureBuilt()` (the start
// launcher and bin/svc.mjs) builds only when the stamp in dist/ does not match a stat walk of the sources, so a start
// after an edit or a checkout runs the code on disk.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const dist = path.join(root, 'dist');
const STAMP = 'stamp.json';
const ENTRIES = { main: 'src/main.ts', cli: 'src/cli.ts' };
const SOURCE_DIRS = ['src', 'projections'];
// Files besides the sources whose change changes the output.
const INPUTS = ['package.json', 'tsconfig.json', 'scripts/build.mjs', 'node_modules/esbuild/package.json'];

/** What the output was built from: path, size and mtime of every source file (tests excluded) and input. */
export function fingerprint() {
  const hash = createHash('sha256');
  const add = (rel) => {
    const s = fs.statSync(path.join(root, rel), { throwIfNoEntry: false });
    hash.update(`${rel}\0${s ? `${s.size}\0${s.mtimeMs}` : '-'}\n`);
  };
  const walk = (rel) => {
    const entries = fs.readdirSync(path.join(root, rel), { withFileTypes: true });
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const child = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(child);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) add(child);
    }
  };
  for (const dir of SOURCE_DIRS) walk(dir);
  for (const file of INPUTS) add(file);
  return hash.digest('hex');
}

/** True when `outdir` holds both entries built from the sources as they are now. */
export function isFresh(outdir = dist) {
  try {
    const stamp = JSON.parse(fs.readFileSync(path.join(outdir, STAMP), 'utf8'));
    return (
      stamp.fingerprint === fingerprint() &&
      Object.keys(ENTRIES).every((name) => fs.existsSync(path.join(outdir, `${name}.mjs`)))
    );
  } catch {
    return false;
  }
}

/**
 * Bundles the entries into `outdir`. Each file is written beside its place and renamed over it, the stamp last, so a
 * process starting meanwhile reads either the old build or the new one, and a build cut short is built again.
 */
export async function build(outdir = dist) {
  const started = performance.now();
  const print = fingerprint();
  const esbuild = await import('esbuild');
  const options = {
    absWorkingDir: root,
    entryPoints: ENTRIES,
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    // Each `import()` of the sources is a chunk of its own, loaded when the code reaches it: an adapter the
    // configuration does not pick (S3, Redis, EventStoreDB, SMTP, PGlite on PostgreSQL) never loads its client.
    // Chunks are named by their content, so a build next to a running server never changes a chunk it may still load.
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    target: 'node20.19',
    // Error and class names stay as written (logs, `err.name` checks) although bundling renames clashing locals.
    keepNames: true,
    sourcemap: 'linked',
    write: false,
    logLevel: 'warning',
  };
  // esbuild answers from a service process that stays until its parent exits: `npm start` builds and then runs the
  // server in the same process, so the service would sit beside the server for its whole life (about 120 MB).
  const result = await esbuild.build(options).finally(() => esbuild.stop());
  fs.mkdirSync(path.join(outdir, 'chunks'), { recursive: true });
  const put = (file, contents) => {
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, contents);
    fs.renameSync(tmp, file);
  };
  for (const f of result.outputFiles) put(f.path, f.contents);
  put(path.join(outdir, STAMP), `${JSON.stringify({ fingerprint: print, builtAt: new Date().toISOString() })}\n`);
  return { ms: Math.round(performance.now() - started), outdir };
}

/** Builds dist/ when the sources changed since the last build; quick (a stat walk) when they did not. */
export async function ensureBuilt() {
  if (isFresh()) return;
  const { ms } = await build();
  process.stderr.write(`built dist/ from the changed sources in ${ms} ms\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outdir = process.argv[2] ? path.resolve(process.argv[2]) : dist;
  const { ms } = await build(outdir);
  process.stdout.write(`built ${path.relative(process.cwd(), outdir) || '.'} in ${ms} ms\n`);
}
