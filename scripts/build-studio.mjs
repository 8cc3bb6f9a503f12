// The studio's build: Vite bundles studio/ (React, Mantine, TanStack) into studio/dist/, which the service serves at
// the private admin path (src/features/studio/). Nothing built is committed: the root postinstall runs this file
// after scripts/build.mjs, and `npm start` (scripts/start.mjs) runs `ensureStudioBuilt()`, which builds again only
// when the hash of the studio's sources differs from the one written beside the last build.
//
// `node scripts/build-studio.mjs` builds (postinstall, `npm run build -w studio`); a failed build exits non-zero, so
// an install fails loudly instead of leaving a service that serves no studio.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const studio = path.join(root, 'studio');
export const studioDist = path.join(studio, 'dist');
const STAMP = 'build.json';
// Besides studio/src: the files whose change changes the output, and the versions of the tools that build it.
const INPUTS = ['studio/index.html', 'studio/vite.config.ts', 'studio/package.json', 'scripts/build-studio.mjs'];
const TOOLS = ['vite', '@vitejs/plugin-react', 'react', 'react-dom', '@mantine/core', '@tanstack/react-router'];

/** The package.json of a tool as the studio resolves it (studio/node_modules first, then the root's). */
function toolManifest(name) {
  const require = createRequire(path.join(studio, 'package.json'));
  for (const dir of require.resolve.paths(name) ?? []) {
    const file = path.join(dir, name, 'package.json');
    if (fs.existsSync(file)) return file;
  }
  return null;
}

/** A hash of the studio's sources (their contents, tests excluded) and of the tools' versions. */
export function sourceHash() {
  const hash = createHash('sha256');
  const add = (rel) => {
    const file = path.join(root, rel);
    hash.update(`${rel}\0`);
    hash.update(fs.existsSync(file) ? fs.readFileSync(file) : '-');
    hash.update('\n');
  };
  const walk = (rel) => {
    const entries = fs.readdirSync(path.join(root, rel), { withFileTypes: true });
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const child = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(child);
      else if (!/\.test\.tsx?$/.test(e.name)) add(child);
    }
  };
  walk('studio/src');
  for (const file of INPUTS) add(file);
  for (const name of TOOLS) {
    const manifest = toolManifest(name);
    hash.update(`${name}@${manifest ? JSON.parse(fs.readFileSync(manifest, 'utf8')).version : '-'}\n`);
  }
  return hash.digest('hex');
}

/** True when studio/dist holds a build of the sources as they are now. */
export function isStudioFresh() {
  try {
    const stamp = JSON.parse(fs.readFileSync(path.join(studioDist, STAMP), 'utf8'));
    return stamp.sourceHash === sourceHash() && fs.existsSync(path.join(studioDist, 'index.html'));
  } catch {
    return false;
  }
}

/** Runs Vite's build of studio/ in a child process (its own memory, its exit code); the stamp is written last. */
export async function buildStudio() {
  const started = performance.now();
  const hash = sourceHash();
  const manifest = toolManifest('vite');
  if (!manifest) throw new Error('studio: vite is not installed (npm install installs it with the studio)');
  const bin = path.join(path.dirname(manifest), JSON.parse(fs.readFileSync(manifest, 'utf8')).bin.vite);
  const code = await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'build', '--logLevel', 'warn'], {
      cwd: studio,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, NODE_ENV: 'production' },
    });
    child.on('error', reject);
    child.on('exit', (c, signal) => resolve(signal ? 1 : (c ?? 1)));
  });
  if (code !== 0) throw new Error(`studio: vite build failed (exit ${code})`);
  fs.writeFileSync(
    path.join(studioDist, STAMP),
    `${JSON.stringify({ sourceHash: hash, builtAt: new Date().toISOString() })}\n`,
  );
  return { ms: Math.round(performance.now() - started) };
}

/** Builds studio/dist when its sources changed since the last build; a hash of a few hundred KB when they did not. */
export async function ensureStudioBuilt() {
  if (isStudioFresh()) return;
  const { ms } = await buildStudio();
  process.stderr.write(`built studio/dist/ from the changed sources in ${ms} ms\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const { ms } = await buildStudio();
    process.stdout.write(`built studio/dist in ${ms} ms\n`);
  } catch (err) {
    process.stderr.write(`\n${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}
