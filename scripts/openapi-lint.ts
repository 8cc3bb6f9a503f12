import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createDatabase } from '../src/adapters/db/create-db.ts';
import { startRuntime } from '../src/runtime.ts';

/**
 * Lints the served OpenAPI document with Redocly (rules in redocly.yaml). The service is built on a throw-away
 * embedded database and never listens: the document is what `GET /api/v1/openapi.json` answers.
 * `--out <file>` also keeps the document there. Exits non-zero when the linter reports an error.
 */
async function main(): Promise<number> {
  const outAt = process.argv.indexOf('--out');
  const keep = outAt > 0 ? process.argv[outAt + 1] : undefined;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-openapi-'));
  const config = loadConfig({ LOG_LEVEL: 'silent', SVC_DATA_DIR: path.join(dir, 'data') });
  const database = await createDatabase({ kind: 'pglite', dataDir: config.SVC_DATA_DIR });
  const runtime = await startRuntime(config, database, pino({ level: 'silent' }), { asyncWorker: false });
  const app = await buildApp(runtime.deps, { logger: false });
  let doc: string;
  try {
    const res = await app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    if (res.statusCode !== 200) throw new Error(`GET /api/v1/openapi.json answered ${res.statusCode}: ${res.body}`);
    doc = JSON.stringify(res.json(), null, 2);
  } finally {
    await app.close();
    await runtime.stop();
    await database.close();
  }
  const file = path.join(dir, 'openapi.json');
  fs.writeFileSync(file, doc);
  if (keep) fs.writeFileSync(keep, doc);
  const root = path.resolve(import.meta.dirname, '..');
  const lint = spawnSync('npx', ['redocly', 'lint', file, '--config', path.join(root, 'redocly.yaml')], {
    cwd: root,
    stdio: 'inherit',
  });
  fs.rmSync(dir, { recursive: true, force: true });
  return lint.status ?? 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
