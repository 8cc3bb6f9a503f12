import fs from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { ensureServerBuild } from '../support/server-build.ts';
import { PGLITE_TEMPLATE } from './db.ts';

/** Creating a PGlite costs 2–3 s; loading a dumped data directory about 0.6 s. Make the dump once. */
export default async function setup(): Promise<void> {
  ensureServerBuild();
  if (process.env.TEST_DATABASE_URL || fs.existsSync(PGLITE_TEMPLATE)) return;
  const pglite = new PGlite('memory://', { extensions: { unaccent, pg_trgm } });
  await pglite.waitReady;
  const dump = await pglite.dumpDataDir('none');
  await pglite.close();
  const tmp = `${PGLITE_TEMPLATE}.${process.pid}`;
  fs.writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()));
  fs.renameSync(tmp, PGLITE_TEMPLATE);
}
