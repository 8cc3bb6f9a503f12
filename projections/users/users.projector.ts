import { sql } from 'kysely';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import { unseal } from '../../src/kernel/privacy/pii.ts';
import type { UserEvent } from '../../src/features/auth/user.events.ts';

/** Users (instance-wide, site `_system`) and their site memberships, unsealed for lookups. */
export const usersProjector = defineProjector({
  name: 'users',
  version: 3,
  mode: 'inline',
  tables: ['users', 'user_sites'],
  handles: [
    'UserRegistered',
    'UserSiteRoleGranted',
    'UserEmailVerified',
    'UserPasswordChanged',
    'UserTokensRevoked',
    'UserPreferencesChanged',
    'UserProfileChanged',
    'UserSiteRoleRevoked',
  ],
  createTables: async (db, t) => {
    await sql`
      create table ${sql.table(t('users'))} (
        site_id text not null default '_system',
        user_id text primary key,
        email text,
        password_hash text,
        first_name text,
        last_name text,
        instance_admin boolean not null,
        status text not null default 'active',
        token_version integer not null default 0,
        password_version integer not null default 0,
        preferences jsonb not null default '{}',
        created_at timestamptz not null
      )`.execute(db);
    await sql`create unique index ${sql.raw(`${t('users')}_email`)} on ${sql.table(t('users'))} (lower(email))`.execute(
      db,
    );
    await sql`
      create table ${sql.table(t('user_sites'))} (
        site_id text not null,
        user_id text not null,
        role text not null,
        primary key (site_id, user_id)
      )`.execute(db);
    await sql`create index ${sql.raw(`${t('user_sites')}_user`)} on ${sql.table(t('user_sites'))} (user_id)`.execute(
      db,
    );
  },
  instanceWide: true,
  apply: async (trx, stored, t) => {
    const e = stored as unknown as UserEvent;
    const users = sql.table(t('users'));
    switch (e.type) {
      case 'UserRegistered': {
        const d = e.data;
        const open = (v: string | null) => unseal(trx, d.userId, v);
        await sql`
          insert into ${users} (user_id, email, password_hash, first_name, last_name, instance_admin, status, created_at)
          values (${d.userId}, ${await open(d.email)}, ${await open(d.passwordHash)}, ${await open(d.firstName)},
                  ${await open(d.lastName)}, ${d.instanceAdmin}, ${d.status ?? 'active'}, ${d.at})
          on conflict (user_id) do nothing`.execute(trx);
        return;
      }
      case 'UserSiteRoleGranted':
        await sql`
          insert into ${sql.table(t('user_sites'))} (site_id, user_id, role) values (${e.data.siteId}, ${e.data.userId}, ${e.data.role})
          on conflict (site_id, user_id) do update set role = excluded.role`.execute(trx);
        return;
      case 'UserEmailVerified':
        await sql`update ${users} set status = 'active' where user_id = ${e.data.userId}`.execute(trx);
        return;
      case 'UserPasswordChanged': {
        const hash = await unseal(trx, e.data.userId, e.data.passwordHash);
        await sql`update ${users} set password_hash = ${hash}, password_version = password_version + 1
                  where user_id = ${e.data.userId}`.execute(trx);
        return;
      }
      case 'UserTokensRevoked':
        await sql`update ${users} set token_version = ${e.data.tokenVersion} where user_id = ${e.data.userId}`.execute(
          trx,
        );
        return;
      case 'UserPreferencesChanged': {
        const nulls = Object.keys(e.data.patch).filter((k) => e.data.patch[k] === null);
        await sql`update ${users} set preferences = (preferences || ${JSON.stringify(e.data.patch)}::jsonb) - ${nulls}::text[]
                  where user_id = ${e.data.userId}`.execute(trx);
        return;
      }
      case 'UserProfileChanged': {
        const open = (v: string | null) => unseal(trx, e.data.userId, v);
        await sql`update ${users} set first_name = ${await open(e.data.firstName)}, last_name = ${await open(e.data.lastName)}
                  where user_id = ${e.data.userId}`.execute(trx);
        return;
      }
      case 'UserSiteRoleRevoked':
        await sql`delete from ${sql.table(t('user_sites'))} where site_id = ${e.data.siteId} and user_id = ${e.data.userId}`.execute(
          trx,
        );
        return;
      default:
        return;
    }
  },
});
