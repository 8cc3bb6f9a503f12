import { systemMetadata } from '../support/metadata.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sql } from 'kysely';
import { catchUpOnce } from '../../src/platform/es/async-projections.ts';
import { handleCommand } from '../../src/kernel/es/handle-command.ts';
import { ProjectionEngine } from '../../src/platform/es/projection-engine.ts';
import { siteDecider } from '../../src/features/sites/site.decider.ts';
import { siteStream } from '../../src/contracts/sites/site.events.ts';
import { sitesProjector } from '../../projections/sites/sites.projector.ts';
import { siteActivityProjector } from '../../projections/site-activity/site-activity.projector.ts';
import { createTestApp, type TestApp } from '../setup/app.ts';

let t: TestApp;
let admin: string;
beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
});
afterAll(() => t.close());

const meta = systemMetadata;

const snapshot = async (table: string) =>
  (
    await sql<Record<string, unknown>>`select * from ${sql.table(table)} order by site_id`.execute(
      t.deps.database.owner,
    )
  ).rows;

const siteCommand = fc.record({
  site: fc.constantFrom('p-a', 'p-b', 'p-c'),
  create: fc.boolean(),
  name: fc.string({ minLength: 1, maxLength: 8 }),
  save: fc.constantFrom('stay', 'return', 'create_new', null, undefined),
});

describe('ProjectionEngine', () => {
  it('rebuilds from the log exactly the read model that live projection built', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(siteCommand, { minLength: 1, maxLength: 15 }), async (cmds) => {
        for (const c of cmds) {
          const now = new Date().toISOString();
          const settings = c.save === undefined ? undefined : { default_save_action: c.save };
          const command = c.create
            ? ({ type: 'CreateSite', data: { siteId: c.site, name: c.name, createdBy: 'u', now } } as const)
            : ({ type: 'UpdateSite', data: { siteId: c.site, name: c.name, settings, now } } as const);
          await handleCommand(t.deps.store, siteDecider, siteStream(c.site), command, { metadata: meta(c.site) }).catch(
            () => undefined,
          );
        }
        const live = await snapshot('sites');
        await t.deps.engine.rebuild('sites');
        expect(await snapshot('sites')).toEqual(live);
      }),
      { numRuns: 12 },
    );
  });

  it('rebuilds a projector whose version changed, and only that one', async () => {
    await sql`update sites set name = 'drifted' where site_id = 'main'`.execute(t.deps.database.owner);
    const bumped = { ...sitesProjector, version: sitesProjector.version + 1 };
    const engine = new ProjectionEngine(t.deps.database.owner, [bumped], {
      events: t.deps.store,
      servingRole: t.deps.database.servingRole,
    });
    await engine.setup();
    expect((await snapshot('sites')).find((r) => r.site_id === 'main')!.name).toBe('Main');
    const state = await t.deps.db
      .selectFrom('projection_state')
      .selectAll()
      .where('name', '=', 'sites')
      .executeTakeFirstOrThrow();
    expect(state.version).toBe(bumped.version);
    await new ProjectionEngine(t.deps.database.owner, [sitesProjector], {
      events: t.deps.store,
      servingRole: t.deps.database.servingRole,
    }).setup();
  });

  it('moves an async checkpoint with the rows, and a stale worker applies nothing twice', async () => {
    await t.deps.drainAsync();
    const before = await snapshot('site_activity');
    await handleCommand(
      t.deps.store,
      siteDecider,
      siteStream('main'),
      { type: 'UpdateSite', data: { siteId: 'main', name: `n${Date.now()}`, now: new Date().toISOString() } },
      { metadata: meta('main') },
    );
    const status = async () => (await t.deps.engine.status()).find((s) => s.name === 'site-activity')!;
    expect((await status()).lag).toBe(1);
    // Two workers race over the same batch (and the app's own runner may join them): the compare-and-set lets
    // exactly one commit it, whoever that is (a loser also answers the batch's size: it must look again), so the
    // event is counted once.
    await Promise.all([
      catchUpOnce(t.deps.db, t.deps.store, siteActivityProjector),
      catchUpOnce(t.deps.db, t.deps.store, siteActivityProjector),
    ]);
    // When the app's runner won, its commit may still be under way: catching up once more settles it.
    await t.deps.drainAsync();
    expect((await status()).lag).toBe(0);
    const after = await snapshot('site_activity');
    const count = (rows: Record<string, unknown>[]) => Number(rows.find((r) => r.site_id === 'main')!.event_count);
    expect(count(after)).toBe(count(before) + 1);
  });
});

describe('admin projections API', () => {
  it('lists every projection with version, checkpoint and lag', async () => {
    const res = await t.call({ method: 'GET', url: '/api/v1/admin/projections', as: admin });
    expect(res.statusCode).toBe(200);
    const names = res.json().data.map((p: { name: string }) => p.name);
    expect(names).toEqual(expect.arrayContaining(['sites', 'site-activity', 'users', 'instance']));
    for (const p of res.json().data)
      expect(p).toMatchObject({
        version: expect.any(Number),
        lag: expect.any(Number),
        mode: expect.stringMatching(/inline|async/),
      });
  });

  it('rebuilds one on request and keeps the read model', async () => {
    const before = await t.call({ method: 'GET', url: '/api/v1/sites', as: admin });
    const res = await t.call({ method: 'POST', url: '/api/v1/admin/projections/sites/rebuild', as: admin });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ name: 'sites', lag: 0 });
    expect((await t.call({ method: 'GET', url: '/api/v1/sites', as: admin })).json()).toEqual(before.json());
  });

  it('answers an unknown projection with 404 NOT_FOUND and an anonymous caller with 401', async () => {
    expect(
      (await t.call({ method: 'POST', url: '/api/v1/admin/projections/nope/rebuild', as: admin })).json().errors[0]
        .code,
    ).toBe('NOT_FOUND');
    expect((await t.call({ method: 'GET', url: '/api/v1/admin/projections' })).statusCode).toBe(401);
  });
});
