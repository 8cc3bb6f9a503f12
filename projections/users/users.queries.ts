import { sql, type Selectable } from 'kysely';
import { asSystem } from '../../src/kernel/tenancy/site.ts';
import type { Db, DB } from '../../src/kernel/db/database.ts';

export interface UserRow {
  userId: string;
  email: string | null;
  passwordHash: string | null;
  firstName: string | null;
  lastName: string | null;
  instanceAdmin: boolean;
  status: 'active' | 'unverified' | 'invited';
  tokenVersion: number;
  passwordVersion: number;
  preferences: Record<string, unknown>;
  roles: Record<string, string>;
}

/** `users.*` with the user's roles by site (null for a user of no site). */
type Row = Selectable<DB['users']> & { roles: Record<string, string> | null };

const SELECT = sql`
  select u.*, (select jsonb_object_agg(s.site_id, s.role) from user_sites s where s.user_id = u.user_id) as roles
  from users u`;

const toRow = (r: Row): UserRow => ({
  userId: r.user_id,
  email: r.email,
  passwordHash: r.password_hash,
  firstName: r.first_name,
  lastName: r.last_name,
  instanceAdmin: r.instance_admin,
  status: r.status,
  tokenVersion: r.token_version,
  passwordVersion: r.password_version,
  preferences: r.preferences,
  roles: r.roles ?? {},
});

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | null> {
  const r = await asSystem(db, (db) => sql<Row>`${SELECT} where lower(u.email) = lower(${email})`.execute(db));
  return r.rows[0] ? toRow(r.rows[0]) : null;
}

export async function findUserById(db: Db, userId: string): Promise<UserRow | null> {
  const r = await asSystem(db, (db) => sql<Row>`${SELECT} where u.user_id = ${userId}`.execute(db));
  return r.rows[0] ? toRow(r.rows[0]) : null;
}

/** The login result's user profile (spec: id, email, firstName, lastName, avatar). */
export const toProfile = (u: UserRow) => ({
  id: u.userId,
  email: u.email,
  firstName: u.firstName,
  lastName: u.lastName,
  avatar: null,
});

/**
 * The user behind an access token and whether the token's session still lives, in one query (every
 * authenticated request asks it). `sessionLive` is true for tokens without a session.
 */
export async function findUserForToken(
  db: Db,
  userId: string,
  sessionId: string | null,
): Promise<(UserRow & { sessionLive: boolean }) | null> {
  const r = await asSystem(db, (db) =>
    sql<Row & { session_live: boolean }>`
    select u.*,
      (select jsonb_object_agg(s.site_id, s.role) from user_sites s where s.user_id = u.user_id) as roles,
      (${sessionId}::text is null or exists (
        select 1 from sessions x where x.session_id = ${sessionId} and x.user_id = u.user_id and x.revoked_at is null
      )) as session_live
    from users u where u.user_id = ${userId}`.execute(db),
  );
  const row = r.rows[0];
  return row ? { ...toRow(row), sessionLive: row.session_live } : null;
}

export async function firstInstanceAdmin(db: Db): Promise<UserRow | null> {
  const r = await asSystem(db, (db) =>
    sql<Row>`${SELECT} where u.instance_admin order by u.created_at limit 1`.execute(db),
  );
  return r.rows[0] ? toRow(r.rows[0]) : null;
}

/** A member of a site as site admins list them. */
export interface MemberRow {
  id: string;
  email: string | null;
  firstName: string | null;
  lastName: string | null;
  role: string;
  status: string;
  instanceAdmin: boolean;
  createdAt: string;
}

type MemberJoin = Pick<
  Selectable<DB['users']>,
  'user_id' | 'email' | 'first_name' | 'last_name' | 'status' | 'instance_admin' | 'created_at'
> &
  Pick<Selectable<DB['user_sites']>, 'role'>;

/** The site's members (instance admins excepted unless `withInstanceAdmins`), by email, with the total. */
export async function listMembers(
  db: Db,
  siteId: string,
  q: { limit: number; offset: number; role?: string; search?: string; withInstanceAdmins: boolean },
): Promise<{ rows: MemberRow[]; total: number }> {
  const pattern = q.search ? `%${q.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  const where = sql`s.site_id = ${siteId}
    ${q.role ? sql`and s.role = ${q.role}` : sql``}
    ${q.withInstanceAdmins ? sql`` : sql`and not u.instance_admin`}
    ${pattern ? sql`and (u.email ilike ${pattern} or u.first_name ilike ${pattern} or u.last_name ilike ${pattern})` : sql``}`;
  // Accounts are instance-wide (site `_system`): a member list joins them to one site's memberships.
  return asSystem(db, async (db) => {
    const rows =
      await sql<MemberJoin>`select u.user_id, u.email, u.first_name, u.last_name, s.role, u.status, u.instance_admin, u.created_at
     from user_sites s join users u on u.user_id = s.user_id where ${where}
     order by lower(u.email), u.user_id limit ${q.limit} offset ${q.offset}`.execute(db);
    const total = await sql<{
      n: number;
    }>`select count(*)::int as n from user_sites s join users u on u.user_id = s.user_id
     where ${where}`.execute(db);
    return {
      rows: rows.rows.map((r) => ({
        id: r.user_id,
        email: r.email,
        firstName: r.first_name,
        lastName: r.last_name,
        role: r.role,
        status: r.status,
        instanceAdmin: r.instance_admin,
        createdAt: new Date(r.created_at).toISOString(),
      })),
      total: total.rows[0]!.n,
    };
  });
}

/** How many members of the site hold a role (a role still held cannot be deleted). */
export async function countRoleHolders(db: Db, siteId: string, role: string): Promise<number> {
  const r = await sql<{ n: number }>`select count(*)::int as n from user_sites
    where site_id = ${siteId} and role = ${role}`.execute(db);
  return r.rows[0]!.n;
}

/**
 * How many instance administrators can still act, leaving one out (`except`): those with an account not erased (an
 * erasure empties the address of the row, which stays for what the person authored).
 */
export async function countInstanceAdmins(db: Db, except: string | null = null): Promise<number> {
  const r = await asSystem(db, (db) =>
    sql<{ n: number }>`select count(*)::int as n from users
      where instance_admin and email is not null and user_id is distinct from ${except}`.execute(db),
  );
  return r.rows[0]!.n;
}

/** The ids of the instance administrators who can still act (an account not erased). */
export async function instanceAdminIds(db: Db): Promise<string[]> {
  const r = await asSystem(db, (db) =>
    sql<{ user_id: string }>`select user_id from users where instance_admin and email is not null
      order by user_id`.execute(db),
  );
  return r.rows.map((x) => x.user_id);
}
