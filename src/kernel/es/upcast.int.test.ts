import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../../test/setup/db.ts';
import { aggregateStream } from './aggregate-stream.ts';
import { catchUpOnce } from '../../platform/es/async-projections.ts';
import type { Decider } from './decider.ts';
import type { EventMetadata, NewEvent } from './event.ts';
import { handleCommand } from './handle-command.ts';
import { PgEventStore } from '../../adapters/event-store/pg-event-store.ts';
import { ProjectionEngine } from '../../platform/es/projection-engine.ts';
import type { Projector } from './projector.ts';
import { Upcasters } from './upcast.ts';

/** Today's shape: `{ title }`. Version 1 stored `{ name }`. */
type LabelSet = { type: 'LabelSet'; data: { title: string } };
type State = { titles: string[] };
type Command = { type: 'AppendBang' };

const labelDecider: Decider<State, Command, LabelSet> = {
  initialState: () => ({ titles: [] }),
  // Reads `title` only: an event that reached it in the old shape would leave `undefined` here.
  evolve: (s, e) => ({ titles: [...s.titles, e.data.title] }),
  decide: (_c, s) => [{ type: 'LabelSet', data: { title: `${s.titles.at(-1) ?? ''}!` } }],
};

const upcasters = new Upcasters().register({
  type: 'LabelSet',
  fromVersion: 1,
  up: (d) => ({ title: (d as { name: string }).name }),
});

const meta = (): EventMetadata => ({
  siteId: 'up',
  actor: { type: 'system', id: 'test' },
  correlationId: randomUUID(),
  causationId: null,
  requestId: null,
  occurredAt: new Date().toISOString(),
});

const oldShaped = (name: string): NewEvent => ({
  type: 'LabelSet',
  data: { name },
  schemaVersion: 1,
  metadata: meta(),
});

const probe: Projector = {
  name: 'upcast-probe',
  version: 1,
  mode: 'async',
  tables: ['upcast_probe'],
  handles: ['LabelSet'],
  createTables: async (db, t) => {
    await sql`create table ${sql.table(t('upcast_probe'))} (site_id text not null, event_id uuid primary key, title text)`.execute(
      db,
    );
  },
  apply: async (trx, e, t) => {
    const title = (e.data as { title?: string }).title ?? null;
    await sql`insert into ${sql.table(t('upcast_probe'))} (site_id, event_id, title) values (${e.siteId}, ${e.eventId}, ${title})
              on conflict (event_id) do nothing`.execute(trx);
  },
};

describe('an event stored in an old shape', () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  let store: PgEventStore;
  beforeAll(async () => {
    database = await openTestDatabase();
    store = new PgEventStore(database.db, [], { upcasters });
  });
  afterAll(() => database.drop());

  it('reaches a fold and a decider in the new shape', async () => {
    const stream = `up/label/${randomUUID()}`;
    await store.append(stream, [oldShaped('first'), oldShaped('second')], { expectedVersion: 'no_stream' });
    const { state } = await aggregateStream(store, stream, labelDecider.evolve, labelDecider.initialState);
    expect(state.titles).toEqual(['first', 'second']);

    const result = await handleCommand(store, labelDecider, stream, { type: 'AppendBang' }, { metadata: meta() });
    expect(result.state.titles).toEqual(['first', 'second', 'second!']);
    // The decider's own event is written in today's version, so it is never upcast again.
    expect(result.events.map((e) => [e.schemaVersion, e.data])).toEqual([[2, { title: 'second!' }]]);
  });

  it('reaches a projector in the new shape, in a rebuild and in catch-up', async () => {
    const stream = `up/label/${randomUUID()}`;
    await store.append(stream, [oldShaped('before rebuild')], { expectedVersion: 'no_stream' });
    const engine = new ProjectionEngine(database.owner, [probe], {
      events: store,
      servingRole: database.servingRole,
    });
    await engine.setup();
    await store.append(stream, [oldShaped('after rebuild')], { expectedVersion: 1 });
    // The global reader holds back events newer than the cluster's oldest open transaction (another test file's):
    // catch up until the append is visible, as drainAsync does.
    let titles: (string | null)[] = [];
    for (let i = 0; i < 500 && !titles.includes('after rebuild'); i++) {
      while ((await catchUpOnce(database.db, store, probe)) > 0);
      const rows = await sql<{ title: string | null }>`select title from upcast_probe order by title`.execute(
        database.owner,
      );
      titles = rows.rows.map((r) => r.title);
      if (!titles.includes('after rebuild')) await new Promise((r) => setTimeout(r, 20));
    }
    expect(titles).toEqual(expect.arrayContaining(['after rebuild', 'before rebuild']));
    expect(titles).not.toContain(null);
  });
});
