import { sql, type Kysely, type Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { DB } from '../../kernel/db/database.ts';
import { grantReadModel, secureTable } from '../../kernel/db/row-security.ts';
import { withSystem } from '../../kernel/tenancy/site.ts';
import type { StoredEvent } from '../../kernel/es/event.ts';
import type { GlobalLog } from '../../kernel/es/event-store.ts';
import { isRefusal } from './projection-subscription.ts';
import {
  handlesEvent,
  liveTable,
  noInstanceKey,
  type ProjectionContext,
  type Projector,
  type TableName,
} from '../../kernel/es/projector.ts';

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

export interface ProjectionEngineOptions {
  /** The log the projectors read, through the event store port (whatever the adapter). */
  events: GlobalLog;
  /** The connection that reads status; the owner's when left out. */
  serving?: Kysely<DB>;
  /** The role every read-model table is granted to (none when the owner serves). */
  servingRole?: string | null;
  /**
   * Whether inline projectors run inside each append (PostgreSQL/PGlite, the default) or follow the log from a
   * checkpoint like async ones (the subscription mode: EventStoreDB, or SVC_PROJECTION_MODE=subscription).
   */
  inlineInAppends?: boolean;
  /** Where a rebuild in the subscription mode reports the events it skips. */
  log?: Logger;
  /** What rebuilds hand the projectors (the instance keyring); none configured when left out. */
  context?: ProjectionContext;
}

/**
 * Owns every projector's tables and state: creates them, rebuilds a projector from the log into fresh
 * tables and swaps them in (on first start and when its version changes), and reports checkpoints and lag.
 */
export class ProjectionEngine {
  private readonly byName: Map<string, Projector>;
  private readonly serving: Kysely<DB>;
  private readonly servingRole: string | null;
  private readonly events: GlobalLog;
  private readonly inlineInAppends: boolean;
  private readonly log: Logger | undefined;
  private readonly context: ProjectionContext;
  /** `db` is the owner's connection (tables, rebuilds, swaps). */
  constructor(
    private readonly db: Kysely<DB>,
    readonly projectors: readonly Projector[],
    opts: ProjectionEngineOptions,
  ) {
    this.byName = new Map(projectors.map((p) => [p.name, p]));
    this.serving = opts.serving ?? db;
    this.servingRole = opts.servingRole ?? null;
    this.events = opts.events;
    this.inlineInAppends = opts.inlineInAppends ?? true;
    this.log = opts.log;
    this.context = opts.context ?? noInstanceKey;
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

  /**
   * Replays the whole log into fresh tables, then swaps them in with the checkpoint of the last event they hold.
   * Where appends share the database (PostgreSQL, PGlite) the swap holds them back for a moment, so inline
   * projectors miss nothing; elsewhere whatever follows the checkpoint is projected from it after the swap.
   */
  async rebuild(name: string): Promise<ProjectionStatus> {
    const p = this.byName.get(name);
    if (!p) throw new Error(`unknown projection ${name}`);
    const next: TableName = (t) => `${t}${NEXT}`;
    for (const t of p.tables) await sql`drop table if exists ${sql.table(next(t))}`.execute(this.db);
    await p.createTables(this.db, next);
    for (const t of p.tables) await this.secure(next(t));

    let checkpoint: string | undefined;
    for (;;) {
      const batch = await this.events.readAll({ after: checkpoint, limit: BATCH });
      if (batch.length === 0) break;
      await this.db.transaction().execute((trx) => this.replay(trx, p, batch, next));
      checkpoint = batch[batch.length - 1]!.checkpoint;
    }

    await this.db.transaction().execute(async (trx) => {
      const readHeld = await this.events.holdAppends?.(trx);
      for (;;) {
        const batch = readHeld ? await readHeld(checkpoint, BATCH) : [];
        if (batch.length === 0) break;
        await this.replay(trx, p, batch, next);
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

  /**
   * Applies a batch of a rebuild. In the subscription mode an event its read model refused live was skipped there
   * (the log keeps it for good); the rebuild skips it too, so the replay gives what live projection gave. Inside
   * appends a refused event was never committed, so there a refusal is an error.
   */
  private async replay(trx: Transaction<DB>, p: Projector, batch: StoredEvent[], t: TableName): Promise<void> {
    if (this.inlineInAppends) return applyAll(trx, p, batch, t, this.context);
    if (!(await refusedInSavepoint(trx, () => applyAll(trx, p, batch, t, this.context)))) return;
    for (const e of batch) {
      const refused = await refusedInSavepoint(trx, () => applyAll(trx, p, [e], t, this.context));
      if (refused)
        this.log?.error(
          { err: refused.err, projector: p.name, eventId: e.eventId, type: e.type, stream: e.streamId },
          'a projector refused an event in a rebuild; it is skipped',
        );
    }
  }

  async status(): Promise<ProjectionStatus[]> {
    const states = await withSystem(this.serving, (trx) => trx.selectFrom('projection_state').selectAll().execute());
    const out: ProjectionStatus[] = [];
    for (const p of this.projectors) out.push(await this.statusOf(p, states));
    return out;
  }

  private async statusOf(
    p: Projector,
    states?: { name: string; status: string; checkpoint: string | null }[],
  ): Promise<ProjectionStatus> {
    // Read before the log is (never inside a transaction around it: PGlite has one connection).
    const state = states
      ? states.find((s) => s.name === p.name)
      : await this.db.selectFrom('projection_state').selectAll().where('name', '=', p.name).executeTakeFirst();
    const base = { name: p.name, version: p.version, mode: p.mode, status: state?.status ?? 'new' };
    if (p.mode === 'inline' && this.inlineInAppends) {
      // Inline projectors commit with each append: no lag, and their position is the head of the log.
      return { ...base, checkpoint: await this.events.headPosition(), lag: 0 };
    }
    const checkpoint = state?.checkpoint ?? null;
    return { ...base, checkpoint, lag: await this.events.countAfter(checkpoint) };
  }
}

/** Runs `work` in a savepoint: null when it applied, the refusal when the read model refused it (rolled back). */
async function refusedInSavepoint(trx: Transaction<DB>, work: () => Promise<void>): Promise<{ err: unknown } | null> {
  await sql`savepoint replay_batch`.execute(trx);
  try {
    await work();
    await sql`release savepoint replay_batch`.execute(trx);
    return null;
  } catch (err) {
    if (!isRefusal(err)) throw err;
    await sql`rollback to savepoint replay_batch`.execute(trx);
    return { err };
  }
}

export async function applyAll(
  trx: Transaction<DB>,
  p: Projector,
  events: StoredEvent[],
  t: TableName = liveTable,
  ctx: ProjectionContext = noInstanceKey,
): Promise<void> {
  for (const e of events) if (handlesEvent(p, e.type)) await p.apply(trx, e, t, ctx);
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
