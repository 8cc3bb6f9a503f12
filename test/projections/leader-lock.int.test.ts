import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { sql } from 'kysely';
import { startAsyncProjections } from '../../src/kernel/es/async-projections.ts';
import { siteActivityProjector } from '../../projections/site-activity/site-activity.projector.ts';
import { createTestApp, type TestApp } from '../setup/app.ts';

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
if (!onPostgres)
  console.info('leader-lock test skipped: it needs TEST_DATABASE_URL (PGlite has one process per data directory)');

describe.skipIf(!onPostgres)('async projections leader lock', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await t.setup();
  });
  afterAll(() => t.close());

  it('lets one of two nodes project, and the other take over when it stops', async () => {
    const log = pino({ level: 'silent' });
    const opts = {
      db: t.deps.db,
      lockPool: t.deps.database.pool,
      projectors: [siteActivityProjector],
      log,
      pollMs: 20,
    };
    const a = startAsyncProjections(opts);
    await new Promise((r) => setTimeout(r, 200));
    const b = startAsyncProjections(opts);
    const holders = async () =>
      Number(
        (
          await sql<{ n: string }>`select count(*)::text as n from pg_locks where locktype = 'advisory' and granted
           and objid = (hashtext(current_schema() || ':async-projections'))::oid`.execute(t.deps.db)
        ).rows[0]!.n,
      );
    expect(await holders()).toBe(1);
    await a.stop();
    await new Promise((r) => setTimeout(r, 300));
    expect(await holders()).toBe(1);
    const lag = (await t.deps.engine.status()).find((s) => s.name === 'site-activity')!.lag;
    expect(lag).toBe(0);
    await b.stop();
  });
});
