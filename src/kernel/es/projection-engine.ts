import { sql, type Kysely, type Transaction } from 'kysely';
import type { Db, DB } from '../db/database.ts';
import { grantReadModel, secureTable } from '../db/row-security.ts';
import { withSystem } from '../tenancy/site.ts';
import type { StoredEvent } from './event.ts';
import { readGlobal } from './pg-event-store.ts';
import { handlesEvent, liveTable, type Projector, type TableName } from './projector.ts';

const BATCH = 500;
const NEXT = '__next';

export interface ProjectionStatus {
  name: string;
  version: number;
  mode: 'inline' | 'async';
  status: string;
  checkpoint: string | null;
  lag: number;
}

/**
 * Owns every projector's tables and state: creates them, rebuilds a projector from the log into fresh
 * tables and swaps them in (on first start and when its version changes), and reports checkpoints and lag.
 */
export class ProjectionEngine {
  private readonly byName: Map<string, Projector>;
  private readonly serving: Kysely<DB>;
  private readonly servingRole: string | null;
  /**
   * `db` is the owner's connection (tables, rebuilds, swaps); `serving` the one that reads status, and
   * `servingRole` the role that every read-model table is granted to (none when the owner serves).
   */
  constructor(
    private readonly db: Kysely<DB>,
    readonly projectors: readonly Projector[],
    opts: { serving?: Kysely<DB>; servingRole?: string | null } = {},
  ) {
    this.byName = new Map(projectors.map((p) => [p.name, p]));
    this.serving = opts.serving ?? db;
    this.servingRole = opts.servingRole ?? null;
  }

  get(name: string): Projector | undefined {
    return this.byName.get(name);
  }

  /** Brings every projector to its code version: new or changed ones are rebuilt from the log. */
  async setup(): Promise<void> {
    for (const p of this.projectors) {
      await p.prepare?.(this.db);
      const state = await this.db
        .selectFrom('projection_state')
        .selectAll()
        .where('name', '=', p.name)
        .executeTakeFirst();
      if (!state || state.version !== p.version) await this.rebuild(p.name);
      // Tables made by an earlier version, or granted to another serving role, are brought under today's wall.
      else for (const t of p.tables) await this.secure(t);
    }
  }

  private async secure(table: string): Promise<void> {
    await secureTable(this.db, table);
    if (this.servingRole) await grantReadModel(this.db, table, this.servingRole);
  }

  /** Replays the whole log into fresh tables, then swaps them in under a short lock that holds back appends. */
  async rebuild(name: string): Promise<ProjectionStatus> {
    const p = this.byName.get(name);
    if (!p) throw new Error(`unknown projection ${name}`);
    const next: TableName = (t) => `${t}${NEXT}`;
    for (const t of p.tables) await sql`drop table if exists ${sql.table(next(t))}`.execute(this.db);
    await p.createTables(this.db, next);
    for (const t of p.tables) await this.secure(next(t));

    let checkpoint: string | undefined;
    for (;;) {
      const batch = await readGlobal(this.db, checkpoint, BATCH, true);
      if (batch.length === 0) break;
      await this.db.transaction().execute((trx) => applyAll(trx, p, batch, next));
      checkpoint = batch[batch.length - 1]!.checkpoint;
    }

    await this.db.transaction().execute(async (trx) => {
      // Appends wait for this lock; everything committed before it is read without the snapshot guard.
      await sql`lock table events in exclusive mode`.execute(trx);
      for (;;) {
        const batch = await readGlobal(trx, checkpoint, BATCH, false);
        if (batch.length === 0) break;
        await applyAll(trx, p, batch, next);
        checkpoint = batch[batch.length - 1]!.checkpoint;
      }
      for (const t of p.tables) await swapIn(trx, t, next(t));
      await trx
        .insertInto('projection_state')
        .values({
          name: p.name,
          version: p.version,
          checkpoint: checkpoint ?? null,
          status: 'live',
          updated_at: new Date(),
        })
        .onConflict((oc) =>
          oc.column('name').doUpdateSet({
            version: p.version,
            checkpoint: checkpoint ?? null,
            status: 'live',
            updated_at: new Date(),
          }),
        )
        .execute();
    });
    return this.statusOf(p);
  }

  async status(): Promise<ProjectionStatus[]> {
    return withSystem(this.serving, async (trx) => {
      const out: ProjectionStatus[] = [];
      for (const p of this.projectors) out.push(await this.statusOf(p, trx));
      return out;
    });
  }

  private async statusOf(p: Projector, db: Db = this.db): Promise<ProjectionStatus> {
    const state = await db.selectFrom('projection_state').selectAll().where('name', '=', p.name).executeTakeFirst();
    if (p.mode === 'inline') {
      // Inline projectors commit with each append: no lag, and their position is the head of the log.
      const head = await sql<{ cp: string | null }>`
        select transaction_id || ':' || global_position as cp from events
        order by transaction_id desc, global_position desc limit 1`.execute(db);
      return {
        name: p.name,
        version: p.version,
        mode: p.mode,
        status: state?.status ?? 'new',
        checkpoint: head.rows[0]?.cp ?? null,
        lag: 0,
      };
    }
    const lag = await countAfter(db, state?.checkpoint ?? null);
    return {
      name: p.name,
      version: p.version,
      mode: p.mode,
      status: state?.status ?? 'new',
      checkpoint: state?.checkpoint ?? null,
      lag,
    };
  }
}

export async function countAfter(db: Db, checkpoint: string | null): Promise<number> {
  const [tx, pos] = (checkpoint ?? '0:0').split(':');
  const r = await sql<{ n: string }>`
    select count(*)::text as n from events where (transaction_id, global_position) > (${tx}::xid8, ${pos}::bigint)`.execute(
    db,
  );
  return Number(r.rows[0]!.n);
}

export async function applyAll(
  trx: Transaction<DB>,
  p: Projector,
  events: StoredEvent[],
  t: TableName = liveTable,
): Promise<void> {
  for (const e of events) if (handlesEvent(p, e.type)) await p.apply(trx, e, t);
}

async function swapIn(trx: Transaction<DB>, live: string, next: string): Promise<void> {
  await sql`drop table if exists ${sql.table(live)} cascade`.execute(trx);
  await sql`alter table ${sql.table(next)} rename to ${sql.table(live)}`.execute(trx);
  const idx = await sql<{ indexname: string }>`
    select indexname from pg_indexes where schemaname = current_schema() and tablename = ${live}`.execute(trx);
  for (const { indexname } of idx.rows) {
    if (indexname.includes(NEXT)) {
      await sql`alter index ${sql.table(indexname)} rename to ${sql.table(indexname.replace(NEXT, ''))}`.execute(trx);
    }
  }
  // Extended statistics objects are named like indexes and follow the same renaming.
  const stats = await sql<{ stxname: string }>`
    select s.stxname from pg_statistic_ext s join pg_class c on c.oid = s.stxrelid
    where c.relname = ${live} and c.relnamespace = current_schema()::regnamespace`.execute(trx);
  for (const { stxname } of stats.rows) {
    if (stxname.includes(NEXT))
      await sql`alter statistics ${sql.table(stxname)} rename to ${sql.table(stxname.replace(NEXT, ''))}`.execute(trx);
  }
}
