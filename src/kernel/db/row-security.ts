import { sql, type Kysely } from 'kysely';
import { SITE_SETTING, SYSTEM_SITE } from '../tenancy/site.ts';
import type { Db, DB } from './database.ts';

/**
 * Row-level security is the second wall behind the code's own site filters (DESIGN §4): every table with a
 * `site_id` shows and accepts a row only when it is of the site named by the transaction's setting, or when the
 * setting is exactly `_system` (instance-wide work). Without a setting nothing is visible. FORCEd, so the tables'
 * owner is held by it too; only a superuser or a BYPASSRLS role passes, and the serving role must be neither.
 */
const current = sql.raw(`current_setting('${SITE_SETTING}', true)`);
const SITE_ROWS = sql`site_id = ${current} or ${current} = ${sql.lit(SYSTEM_SITE)}`;
const SYSTEM_ONLY = sql`${current} = ${sql.lit(SYSTEM_SITE)}`;
const POLICY = 'site_wall';

/** Kernel tables and what the serving role may do with them (instance_settings: nothing, the owner reads it). */
const KERNEL_GRANTS: [table: string, privileges: string][] = [
  ['events', 'select, insert'],
  ['streams', 'select, insert, update'],
  ['outbox', 'select, insert, update, delete'],
  ['subject_keys', 'select, insert, delete'],
  ['projection_state', 'select, update'],
  ['reactor_state', 'select, insert, update'],
  ['reactor_parked', 'select, insert'],
];

/** FORCEs row-level security on a table with a `site_id` under the site policy; idempotent. */
export async function secureTable(db: Db, table: string, opts: { systemOnly?: boolean } = {}): Promise<void> {
  const state = await sql<{ forced: boolean; has: boolean }>`
    select c.relforcerowsecurity and c.relrowsecurity as forced,
           exists (select 1 from pg_policy p where p.polrelid = c.oid and p.polname = ${POLICY}) as has
    from pg_class c where c.oid = to_regclass(${table})`.execute(db);
  const row = state.rows[0];
  if (row?.forced && row.has) return;
  const t = sql.table(table);
  const rule = opts.systemOnly ? SYSTEM_ONLY : SITE_ROWS;
  // Earlier versions made a site-only policy; replaced, not added to (permissive policies widen each other).
  await sql`drop policy if exists site_isolation on ${t}`.execute(db);
  await sql`drop policy if exists ${sql.id(POLICY)} on ${t}`.execute(db);
  await sql`create policy ${sql.id(POLICY)} on ${t} using (${rule}) with check (${rule})`.execute(db);
  await sql`alter table ${t} enable row level security`.execute(db);
  await sql`alter table ${t} force row level security`.execute(db);
}

/** The kernel tables under the wall: the log and its stream versions, the mail outbox, the subjects' keys. */
export async function secureKernelTables(db: Db): Promise<void> {
  for (const t of ['events', 'streams', 'outbox']) await secureTable(db, t);
  // Personal-data keys belong to accounts, which are instance-wide: only instance-level work reaches them.
  await secureTable(db, 'subject_keys', { systemOnly: true });
}

/** Lets the serving role use the schema and the kernel tables (the projection engine grants the read models). */
export async function grantServing(owner: Kysely<DB>, role: string): Promise<void> {
  const r = sql.id(role);
  const schema = await sql<{ s: string }>`select current_schema() as s`.execute(owner);
  await sql`grant usage on schema ${sql.id(schema.rows[0]!.s)} to ${r}`.execute(owner);
  for (const [table, privileges] of KERNEL_GRANTS)
    await sql`grant ${sql.raw(privileges)} on ${sql.table(table)} to ${r}`.execute(owner);
}

/** A read-model table and the sequences of its columns, for the serving role's projectors and queries. */
export async function grantReadModel(db: Db, table: string, role: string): Promise<void> {
  await sql`grant select, insert, update, delete on ${sql.table(table)} to ${sql.id(role)}`.execute(db);
  const seqs = await sql<{ s: string }>`
    select pg_get_serial_sequence(${table}, a.attname) as s from pg_attribute a
    where a.attrelid = to_regclass(${table}) and a.attnum > 0 and not a.attisdropped
      and pg_get_serial_sequence(${table}, a.attname) is not null`.execute(db);
  for (const { s } of seqs.rows) await sql`grant usage on sequence ${sql.raw(s)} to ${sql.id(role)}`.execute(db);
}

/**
 * Refuses a serving role that could step over the wall: a superuser, a BYPASSRLS role, or one that is (or may
 * become) the owner of the tables. Returns its name.
 */
export async function checkServingRole(db: Kysely<DB>): Promise<string> {
  const r = await sql<{ name: string; superuser: boolean; bypass: boolean; owner: string | null; member: boolean }>`
    select current_user as name, r.rolsuper as superuser, r.rolbypassrls as bypass, t.tableowner as owner,
           coalesce(pg_has_role(current_user, t.tableowner, 'MEMBER'), false) as member
    from pg_roles r left join pg_tables t on t.schemaname = current_schema() and t.tablename = 'events'
    where r.rolname = current_user`.execute(db);
  const row = r.rows[0]!;
  const why = row.superuser
    ? 'is a superuser'
    : row.bypass
      ? 'has BYPASSRLS'
      : row.member
        ? `is, or is a member of, the tables' owner ${row.owner ?? ''}`
        : null;
  if (why)
    throw new Error(
      `DATABASE_URL names the role ${row.name}, which ${why}: row-level security would not hold it. Connect as a serving role that owns nothing (see DATABASE_MIGRATION_URL)`,
    );
  return row.name;
}
