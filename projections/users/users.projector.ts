import { sql } from 'kysely';
import { jsonbMerge } from '../../src/kernel/db/database.ts';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import { unseal } from '../../src/platform/privacy/pii.ts';
import type { UserEvent } from '../../src/contracts/auth/user.events.ts';

/** Users (instance-wide, site `_system`) and their site memberships, unsealed for lookups. */
export const usersProjector = defineProjector<UserEvent>({
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
    'UserErased',
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
  apply: async (trx, e, _t, { keyring }) => {
    const user = (id: string) => trx.updateTable('users').where('user_id', '=', id);
    switch (e.type) {
      case 'UserRegistered': {
        const d = e.data;
        const open = (v: string | null) => unseal(trx, keyring, d.userId, v);
        await trx
          .insertInto('users')
          .values({
            user_id: d.userId,
            email: await open(d.email),
            password_hash: await open(d.passwordHash),
            first_name: await open(d.firstName),
            last_name: await open(d.lastName),
            instance_admin: d.instanceAdmin,
            status: d.status ?? 'active',
            created_at: d.at,
          })
          .onConflict((oc) => oc.column('user_id').doNothing())
          .execute();
        return;
      }
      case 'UserSiteRoleGranted':
        await trx
          .insertInto('user_sites')
          .values({ site_id: e.data.siteId, user_id: e.data.userId, role: e.data.role })
          .onConflict((oc) =>
            oc.columns(['site_id', 'user_id']).doUpdateSet((eb) => ({ role: eb.ref('excluded.role') })),
          )
          .execute();
        return;
      case 'UserEmailVerified':
        await user(e.data.userId).set({ status: 'active' }).execute();
        return;
      case 'UserPasswordChanged': {
        const hash = await unseal(trx, keyring, e.data.userId, e.data.passwordHash);
        await user(e.data.userId)
          .set((eb) => ({ password_hash: hash, password_version: eb('password_version', '+', 1) }))
          .execute();
        return;
      }
      case 'UserTokensRevoked':
        await user(e.data.userId).set({ token_version: e.data.tokenVersion }).execute();
        return;
      case 'UserPreferencesChanged': {
        const { patch } = e.data;
        const nulls = Object.keys(patch).filter((k) => patch[k] === null);
        // A key set to null leaves the preferences: jsonb's `- text[]` after the merge.
        await user(e.data.userId)
          .set((eb) => ({
            preferences: sql<Record<string, unknown>>`(${jsonbMerge(eb.ref('preferences'), patch)}) - ${nulls}::text[]`,
          }))
          .execute();
        return;
      }
      case 'UserProfileChanged': {
        const open = (v: string | null) => unseal(trx, keyring, e.data.userId, v);
        await user(e.data.userId)
          .set({ first_name: await open(e.data.firstName), last_name: await open(e.data.lastName) })
          .execute();
        return;
      }
      case 'UserErased':
        // What was opened from the person's sealed values goes with their key; the row stays for what they authored.
        await user(e.data.userId)
          .set({ email: null, password_hash: null, first_name: null, last_name: null, preferences: '{}' })
          .execute();
        await trx.deleteFrom('user_sites').where('user_id', '=', e.data.userId).execute();
        return;
      case 'UserSiteRoleRevoked':
        await trx
          .deleteFrom('user_sites')
          .where('site_id', '=', e.data.siteId)
          .where('user_id', '=', e.data.userId)
          .execute();
        return;
      default:
        return;
    }
  },
});
