import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../../kernel/db/database.ts';
import { deferStatement, ownWrites } from '../../kernel/db/later.ts';
import { failedOwner } from '../db/site-scoped.ts';

interface Pending<T> {
  work: (trx: Transaction<DB>) => Promise<T>;
  resolve: (value: T) => void;
  reject: (err: unknown) => void;
}

/** Pending writes one transaction takes at most. */
const MAX_GROUP = 64;

/**
 * Group commit: writes that arrive while a transaction is committing wait for it, then all of them go into the
 * next transaction, each inside its own savepoint. One commit (one WAL flush) then serves many writers, which is
 * how appends get past the one-commit-per-write ceiling (DESIGN §3). A write that fails rolls back to its
 * savepoint and fails alone; a lone write runs without a savepoint. No write waits for a timer: a group is just
 * whatever queued up during the previous commit. On the serving connection a write's release and read-model writes
 * travel with the next write's first statement, so a group of n writes costs n + 2 round trips, not 2n + 1.
 */
export class GroupCommitter {
  private queue: Pending<unknown>[] = [];
  private running = false;

  constructor(private readonly db: Kysely<DB>) {}

  run<T>(work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve, reject } as Pending<unknown>);
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.queue.length) await this.commit(this.queue.splice(0, MAX_GROUP));
    } finally {
      this.running = false;
    }
  }

  private async commit(group: Pending<unknown>[]): Promise<void> {
    if (group.length === 1) {
      const [p] = group as [Pending<unknown>];
      await this.db.transaction().execute(p.work).then(p.resolve, p.reject);
      return;
    }
    const outcomes: ({ ok: true; value: unknown } | { ok: false; err: unknown })[] = [];
    try {
      await this.db.transaction().execute(async (trx) => {
        for (let i = 0; i < group.length; i++) {
          const p = group[i]!;
          await sql`savepoint group_write`.execute(trx);
          await ownWrites(trx, i);
          try {
            outcomes[i] = { ok: true, value: await p.work(trx) };
            // The release (and this write's deferred read-model writes) go with the next write's first statement;
            // the last one's go now, so that a failure of them is never the commit's.
            if (i < group.length - 1) await deferStatement(trx, 'release savepoint group_write');
            else await sql`release savepoint group_write`.execute(trx);
          } catch (err) {
            await rollbackTo(trx, outcomes, i);
            const owner = failedOwner(err);
            if (owner !== undefined && owner < i) {
              // The previous write's deferred writes failed, riding with this write's first statement: the rollback
              // went to that write's savepoint (its release never ran). It fails; this one never ran, and goes again.
              outcomes[owner] = { ok: false, err };
              i--;
              continue;
            }
            outcomes[i] = { ok: false, err };
          }
        }
        await ownWrites(trx, undefined);
      });
    } catch (err) {
      for (const p of group) p.reject(err);
      return;
    }
    group.forEach((p, i) => {
      const o = outcomes[i]!;
      if (o.ok) p.resolve(o.value);
      else p.reject(o.err);
    });
  }
}

/**
 * Rolls the group back to its latest savepoint. The rollback may carry the previous write's deferred writes (this
 * write failed before sending anything); if one of them fails there, that write fails, and the rollback goes again,
 * now to that write's savepoint (its release never ran).
 */
async function rollbackTo(
  trx: Transaction<DB>,
  outcomes: ({ ok: true; value: unknown } | { ok: false; err: unknown })[],
  current: number,
): Promise<void> {
  try {
    await sql`rollback to savepoint group_write`.execute(trx);
  } catch (err) {
    const owner = failedOwner(err);
    if (owner === undefined || owner >= current) throw err;
    outcomes[owner] = { ok: false, err };
    await sql`rollback to savepoint group_write`.execute(trx);
  }
}
