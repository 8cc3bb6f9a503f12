import { CompiledQuery, type DatabaseConnection, type Kysely, type Transaction } from 'kysely';
import type { DB } from './database.ts';

/**
 * A connection that sends the statements whose answer nobody reads with the next one (the pipelining driver of
 * PostgreSQL and PGlite, `adapters/db/site-scoped.ts`). Other connections (kysely's own driver) run them at once.
 */
export interface DeferringConnection extends DatabaseConnection {
  readonly defers: true;
  /** The write that `later` statements belong to now (see `ownWrites`). */
  owner: number | undefined;
  later(q: CompiledQuery, mapError: (err: Error) => Error): void;
  defer(text: string): void;
}

const defers = (c: DatabaseConnection): c is DeferringConnection => (c as Partial<DeferringConnection>).defers === true;

/**
 * Runs a write whose answer nobody reads inside a transaction on the serving connection: it is sent with the
 * transaction's next statement (at the latest its release, commit or rollback), in order, so later statements
 * of the transaction see it. A failure is reported by that next statement, as `mapError` makes it (the write's
 * own domain meaning, such as a unique field's value being taken). Elsewhere (outside a transaction, another
 * driver) it runs at once. The inline projectors of an append write this way: an append then costs a round trip or
 * two.
 */
export async function later(
  db: Kysely<DB> | Transaction<DB>,
  query: { compile(): CompiledQuery },
  mapError: (err: Error) => Error = (err) => err,
): Promise<void> {
  const compiled = query.compile();
  if (!db.isTransaction) {
    await db.executeQuery(compiled).catch((err: Error) => Promise.reject(mapError(err)));
    return;
  }
  await db.getExecutor().provideConnection(async (c) => {
    if (defers(c)) c.later(compiled, mapError);
    else await c.executeQuery(compiled).catch((err: Error) => Promise.reject(mapError(err)));
  });
}

/**
 * Sends `text` (a statement whose answer nobody reads, such as a savepoint's release) with the transaction's next
 * statement on the serving connection; elsewhere it runs at once.
 */
export async function deferStatement(trx: Transaction<DB>, text: string): Promise<void> {
  await trx.getExecutor().provideConnection(async (c) => {
    if (defers(c)) c.defer(text);
    else await c.executeQuery(CompiledQuery.raw(text));
  });
}

/**
 * Marks the `later` writes of the transaction from now on as `owner`'s: when one of them fails with a statement that
 * is not its owner's (it rode with the next write's first statement), the driver names whose it was.
 */
export async function ownWrites(trx: Transaction<DB>, owner: number | undefined): Promise<void> {
  await trx.getExecutor().provideConnection(async (c) => {
    if (defers(c)) c.owner = owner;
  });
}
