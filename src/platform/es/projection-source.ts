import { sql, type Kysely } from 'kysely';
import type { DB } from '../../kernel/db/database.ts';
import type { EventStore } from '../../kernel/es/event-store.ts';
import type { Projector } from '../../kernel/es/projector.ts';

export type ProjectionMode = 'inline' | 'subscription';

interface Source {
  store: string;
  mode: ProjectionMode;
}

const KEY = 'projection_source';

/**
 * Makes the read models' checkpoints fit the log and mode they are started with, before they are brought to their
 * code version. Another store's positions mean nothing here: every projector is rebuilt. Inline projectors leave
 * their checkpoint where their last rebuild put it (an append does not move it), so when they move to the
 * subscription they take the head of the log (everything in it is applied); when they move back they must first
 * catch up (`'catch-up'`). Both switches assume no other node appends meanwhile (switch with all nodes stopped).
 * `record` keeps the new source once that is done, so a start that fails half-way is reconciled again.
 */
export async function reconcileProjectionSource(
  owner: Kysely<DB>,
  store: Pick<EventStore, 'kind' | 'headPosition'>,
  mode: ProjectionMode,
  inline: readonly Projector[],
): Promise<{ plan: 'as-is' | 'catch-up'; record(): Promise<void> }> {
  const row = await owner.selectFrom('instance_settings').select('value').where('key', '=', KEY).executeTakeFirst();
  const built = await owner.selectFrom('projection_state').select('name').executeTakeFirst();
  // A database from before this record was kept has only known the SQL store with inline projectors.
  const previous = (row?.value as Source | undefined) ?? (built ? { store: 'postgres', mode: 'inline' } : null);
  const now: Source = { store: store.kind, mode };
  let plan: 'as-is' | 'catch-up' = 'as-is';
  if (previous && previous.store !== now.store) {
    await owner.deleteFrom('projection_state').execute();
  } else if (previous?.mode === 'inline' && mode === 'subscription' && inline.length > 0) {
    const head = await store.headPosition();
    const names = inline.map((p) => p.name);
    await owner
      .updateTable('projection_state')
      .set({ checkpoint: head, updated_at: new Date() })
      .where('name', 'in', names)
      .execute();
  } else if (previous?.mode === 'subscription' && mode === 'inline') {
    plan = 'catch-up';
  }
  const value = JSON.stringify(now);
  const record = async () => {
    await sql`
      insert into instance_settings (key, value) values (${KEY}, ${value}::jsonb)
      on conflict (key) do update set value = excluded.value`.execute(owner);
  };
  return { plan, record };
}
