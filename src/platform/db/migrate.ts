import { sql, type Kysely } from 'kysely';
import type { DB } from '../../kernel/db/database.ts';
import { secureKernelTables, secureTable } from '../../kernel/db/row-security.ts';

const migrations: { id: string; up: (db: Kysely<DB>) => Promise<void> }[] = [
  {
    id: '001_event_store',
    up: async (db) => {
      await sql`
        create table events (
          global_position bigint generated always as identity,
          transaction_id xid8 not null default pg_current_xact_id(),
          site_id text not null,
          stream_id text not null,
          stream_version integer not null,
          event_id uuid not null unique,
          type text not null,
          schema_version integer not null default 1,
          data jsonb not null,
          metadata jsonb not null,
          created_at timestamptz not null,
          primary key (site_id, stream_id, stream_version)
        )`.execute(db);
      await sql`create index events_global_order on events (transaction_id, global_position)`.execute(db);
      await sql`create index events_position on events (global_position)`.execute(db);
      await sql`create index events_site_type on events (site_id, type, global_position)`.execute(db);
      await sql`
        create table streams (
          site_id text not null,
          stream_id text not null,
          version integer not null,
          primary key (site_id, stream_id)
        )`.execute(db);
      await sql`
        create table projection_state (
          name text primary key,
          version integer not null,
          checkpoint text,
          status text not null default 'live',
          updated_at timestamptz not null default now()
        )`.execute(db);
      await sql`create table instance_settings (key text primary key, value jsonb not null)`.execute(db);
    },
  },
  {
    // Made a role for request transactions to switch to; the serving role of DATABASE_URL replaced it.
    id: '002_app_role',
    up: async () => undefined,
  },
  {
    id: '003_subject_keys',
    up: async (db) => {
      // Keys that seal personal data inside events; deleting a subject's key erases its data from the log.
      await sql`
        create table subject_keys (
          subject_id text primary key,
          key bytea not null,
          created_at timestamptz not null default now()
        )`.execute(db);
    },
  },
  {
    id: '004_item_value_functions',
    up: async (db) => {
      // A time inside a JSON document, as an immutable function so that expression indexes can use it: the
      // function pins the time zone, so the same text always gives the same instant.
      await sql`
        create or replace function svc_ts(value text) returns timestamptz
        language sql immutable parallel safe set timezone = 'UTC'
        as $$ select value::timestamptz $$`.execute(db);
    },
  },
  {
    id: '005_outbox',
    up: async (db) => {
      // Mail waiting for (or, without SMTP, instead of) delivery. Operational, not domain state: the events
      // record that a mail was asked for; the outbox holds its text, links included, for a limited time.
      await sql`
        create table outbox (
          id bigint generated always as identity primary key,
          site_id text not null,
          to_address text not null,
          subject text not null,
          body text not null,
          kind text not null,
          created_at timestamptz not null default now(),
          sent_at timestamptz
        )`.execute(db);
      await sql`create index outbox_created on outbox (created_at desc)`.execute(db);
    },
  },
  {
    id: '006_outbox_delivery',
    up: async (db) => {
      await sql`alter table outbox add column attempts integer not null default 0`.execute(db);
      await sql`alter table outbox add column last_error text`.execute(db);
      await sql`alter table outbox add column next_attempt_at timestamptz not null default now()`.execute(db);
      await sql`create index outbox_unsent on outbox (next_attempt_at) where sent_at is null`.execute(db);
    },
  },
  {
    id: '007_row_security',
    up: async (db) => {
      await secureKernelTables(db);
    },
  },
  {
    id: '008_reactors',
    up: async (db) => {
      // Process managers' checkpoints (instance-wide, like projection_state) and the events they gave up on.
      await sql`
        create table reactor_state (
          name text primary key,
          checkpoint text,
          failures integer not null default 0,
          last_error text,
          retry_at timestamptz,
          updated_at timestamptz not null default now()
        )`.execute(db);
      await sql`
        create table reactor_parked (
          id bigint generated always as identity primary key,
          reactor text not null,
          site_id text not null,
          event_id uuid not null,
          type text not null,
          stream_id text not null,
          checkpoint text not null,
          error text not null,
          parked_at timestamptz not null default now()
        )`.execute(db);
      await secureTable(db, 'reactor_parked');
    },
  },
  {
    id: '009_stream_version_function',
    up: async (db) => {
      // A stream's version in ONE statement: the function sets the site for its own (implicit) transaction and
      // reads under it, where begin, set_config, select and commit took four round trips. It runs with the
      // caller's rights (not SECURITY DEFINER): row-level security holds it like any query of the serving role.
      await sql`
        create or replace function svc_stream_version(p_site text, p_stream text) returns integer
        language plpgsql volatile as $$
        begin
          perform set_config('svc.site_id', p_site, true);
          return (select s.version from streams s where s.site_id = p_site and s.stream_id = p_stream);
        end $$`.execute(db);
      // A page of a stream the same way: every command folds its stream before it decides.
      await sql`
        create or replace function svc_read_stream(
          p_site text, p_stream text, p_from integer, p_to integer, p_until timestamptz, p_limit integer
        ) returns setof events
        language plpgsql volatile as $$
        begin
          perform set_config('svc.site_id', p_site, true);
          return query select * from events e
            where e.site_id = p_site and e.stream_id = p_stream and e.stream_version >= p_from
              and (p_to is null or e.stream_version <= p_to) and (p_until is null or e.created_at <= p_until)
            order by e.stream_version limit p_limit;
        end $$`.execute(db);
    },
  },
  {
    id: '010_outbox_headers',
    up: async (db) => {
      // Extra headers a mail is sent with (List-Unsubscribe of marketing mail), as [{ key, value }]; null: none.
      await sql`alter table outbox add column headers jsonb`.execute(db);
    },
  },
  {
    id: '011_events_actor',
    up: async (db) => {
      // A person's events by actor, a page at a time in log order (the personal-data export and subject-access
      // requests; the audit view's actor filter): without it each page scans the site's whole log.
      await sql`
        create index if not exists events_actor
        on events (site_id, (metadata -> 'actor' ->> 'id'), global_position)`.execute(db);
    },
  },
  {
    id: '012_subject_key_wrap',
    up: async (db) => {
      // The instance key a subject key is wrapped under (ENCRYPTION_KEY: `v0`); null: the key is stored in clear.
      // The index answers the start's "which keys are wrapped under what" without reading every key.
      await sql`alter table subject_keys add column key_id text`.execute(db);
      await sql`create index subject_keys_key_id on subject_keys (key_id)`.execute(db);
    },
  },
  {
    id: '013_text_extensions',
    up: async (db) => {
      // unaccent and pg_trgm (trusted extensions since PostgreSQL 13; PGlite loads both) serve full-text search and the
      // translation memory. One database holds each once, whatever the schemas in it: they go to `public` unless
      // already installed elsewhere, under a database-wide lock so two schemas migrating at once do not collide.
      await sql`select pg_advisory_xact_lock(hashtext('content-service:extensions'))`.execute(db);
      await sql`create extension if not exists unaccent schema public`.execute(db);
      await sql`create extension if not exists pg_trgm schema public`.execute(db);
      const ext = await extensionSchema(db, 'unaccent');
      // unaccent() is STABLE (its dictionary could change), so no index may use it: this wrapper names the dictionary
      // and is declared IMMUTABLE, the documented way to index unaccented text. It lives in the service's schema and
      // reaches the extension by its schema, so it works whatever the search_path.
      await sql`
        create or replace function svc_unaccent(text) returns text
        language sql immutable strict parallel safe
        as ${sql.lit(`select ${quoteIdent(ext)}.unaccent('${quoteIdent(ext)}.unaccent'::regdictionary, $1)`)}`.execute(
        db,
      );
    },
  },
  {
    id: '014_scan_log_function',
    up: async (db) => {
      // The log feed's read in one statement instead of a transaction of four: the next `p_limit` events after a
      // position (the same snapshot guard as every global read: never past the oldest open transaction), in full
      // only those of `p_types` (null: all); the others come with their position and type alone, so that a reader
      // knows how far it looked.
      await sql`
        create or replace function svc_scan_log(p_tx xid8, p_pos bigint, p_limit integer, p_types text[])
        returns table (
          global_position bigint, transaction_id xid8, site_id text, stream_id text, stream_version integer,
          event_id uuid, type text, schema_version integer, data jsonb, metadata jsonb, created_at timestamptz
        )
        language plpgsql volatile as $$
        begin
          perform set_config('svc.site_id', '_system', true);
          return query
            select k.global_position, k.transaction_id, e.site_id, e.stream_id, e.stream_version, e.event_id, k.type,
                   e.schema_version, e.data, e.metadata, e.created_at
            from (
              select x.transaction_id, x.global_position, x.type from events x
              where (x.transaction_id, x.global_position) > (p_tx, p_pos)
                and x.transaction_id < pg_snapshot_xmin(pg_current_snapshot())
              order by x.transaction_id, x.global_position
              limit p_limit
            ) k
            left join events e on (p_types is null or k.type = any(p_types))
              and e.transaction_id = k.transaction_id and e.global_position = k.global_position
            order by k.transaction_id, k.global_position;
        end $$`.execute(db);
    },
  },
];

const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** The schema an installed extension's objects live in (qualifies its operators and operator classes). */
export async function extensionSchema(db: Kysely<DB>, name: 'unaccent' | 'pg_trgm'): Promise<string> {
  const r = await sql<{ schema: string }>`
    select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace
    where e.extname = ${name}`.execute(db);
  const schema = r.rows[0]?.schema;
  if (!schema) throw new Error(`the PostgreSQL extension ${name} is not installed`);
  return schema;
}

/** Applies the kernel migrations once, under a transaction-scoped advisory lock. */
export async function migrate(db: Kysely<DB>): Promise<void> {
  await sql`create table if not exists schema_migrations (id text primary key, applied_at timestamptz not null default now())`.execute(
    db,
  );
  await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext(current_schema() || ':migrate'))`.execute(trx);
    const done = await sql<{ id: string }>`select id from schema_migrations`.execute(trx);
    const applied = new Set(done.rows.map((r) => r.id));
    for (const m of migrations) {
      if (applied.has(m.id)) continue;
      await m.up(trx as unknown as Kysely<DB>);
      await sql`insert into schema_migrations (id) values (${m.id})`.execute(trx);
    }
  });
}
