import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

/**
 * The compiled server the process tests start (scripts/build.mjs into a folder of this checkout's own, beside a link to
 * its node_modules): plain node starts it in a fraction of the time a TypeScript loader takes to compile the sources
 * at every start, which the crash tests do several times each.
 */
export const SERVER_BUILD = path.join(
  os.tmpdir(),
  `svc-test-server-${createHash('sha256').update(root).digest('hex').slice(0, 12)}`,
);

/** Builds the test server when the sources changed since its last build (a stat walk when they did not). */
export function ensureServerBuild(): void {
  const script = path.join(root, 'scripts/build.mjs');
  const fresh = execFileSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(script)}); process.stdout.write(String(m.isFresh(${JSON.stringify(SERVER_BUILD)})));`,
    ],
    { cwd: root, encoding: 'utf8' },
  );
  if (fresh === 'true') return;
  execFileSync(process.execPath, [script, SERVER_BUILD], { cwd: root, stdio: 'ignore' });
  const modules = path.join(SERVER_BUILD, 'node_modules');
  if (!fs.existsSync(modules)) fs.symlinkSync(path.join(root, 'node_modules'), modules);
}
