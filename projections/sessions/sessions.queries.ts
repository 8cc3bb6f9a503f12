import { sql } from 'kysely';
import { asSystem } from '../../src/kernel/tenancy/site.ts';
import type { Db } from '../../src/kernel/db/database.ts';

/** A session as its owner or a site admin sees it: no token material, the address truncated. */
export interface SessionView {
  id: string;
  userId: string;
  amr: string[];
  userAgent: string | null;
  ip: string | null;
  createdAt: string;
  lastUsedAt: string;
  expiresAt: string;
}

interface Row {
  session_id: string;
  user_id: string;
  amr: string[];
  user_agent: string | null;
  ip: string | null;
  created_at: Date;
  last_used_at: Date;
  expires_at: Date;
}

/** Keeps the network part of an address only (IPv4 /24, IPv6 /48): enough to recognise, not to locate. */
export function redactIp(ip: string | null): string | null {
  if (!ip) return null;
  if (ip.includes(':')) return `${ip.split(':').slice(0, 3).join(':')}::/48`;
  const parts = ip.split('.');
  return parts.length === 4 ? `${parts.slice(0, 3).join('.')}.0/24` : null;
}

const view = (r: Row): SessionView => ({
  id: r.session_id,
  userId: r.user_id,
  amr: r.amr,
  userAgent: r.user_agent,
  ip: redactIp(r.ip),
  createdAt: new Date(r.created_at).toISOString(),
  lastUsedAt: new Date(r.last_used_at).toISOString(),
  expiresAt: new Date(r.expires_at).toISOString(),
});

/** The user's live sessions, newest first. */
export async function liveSessions(db: Db, userId: string, now: Date): Promise<SessionView[]> {
  const r = await asSystem(db, (db) =>
    sql<Row>`
    select * from sessions where user_id = ${userId} and revoked_at is null and expires_at > ${now}
    order by created_at desc`.execute(db),
  );
  return r.rows.map(view);
}

export async function findSessionOwner(db: Db, sessionId: string): Promise<string | null> {
  const r = await asSystem(db, (db) =>
    sql<{ user_id: string }>`select user_id from sessions where session_id = ${sessionId}`.execute(db),
  );
  return r.rows[0]?.user_id ?? null;
}

/**
 * Deletes sessions that ended (revoked, or expired) before `before`: instance-wide rows, as accounts are. A live
 * session (not revoked, not expired) is never one of them. Answers how many went.
 */
export async function pruneEndedSessions(db: Db, before: Date): Promise<number> {
  const r = await asSystem(db, (db) =>
    db
      .deleteFrom('sessions')
      .where((eb) =>
        eb.or([
          eb.and([eb('revoked_at', 'is not', null), eb('revoked_at', '<', before)]),
          eb('expires_at', '<', before),
        ]),
      )
      .executeTakeFirst(),
  );
  return Number(r.numDeletedRows);
}

/** One of the user's sessions, live or ended, as a personal-data export lists it (the raw user agent and address). */
export interface SessionHistoryRow {
  sessionId: string;
  amr: string[];
  userAgent: string | null;
  ip: string | null;
  createdAt: string;
  lastUsedAt: string;
  expiresAt: string;
  revokedAt: string | null;
  revokeReason: string | null;
}

/** A page of all the user's sessions (ended ones too) after the session id `after`, in id order. */
export async function sessionsOfUser(
  db: Db,
  userId: string,
  after: string | null,
  limit: number,
): Promise<SessionHistoryRow[]> {
  const r = await asSystem(db, (db) =>
    sql<Row & { revoked_at: Date | null; revoke_reason: string | null }>`
    select * from sessions where user_id = ${userId} ${after === null ? sql`` : sql`and session_id > ${after}`}
    order by session_id limit ${limit}`.execute(db),
  );
  const iso = (d: Date | null) => (d === null ? null : new Date(d).toISOString());
  return r.rows.map((s) => ({
    sessionId: s.session_id,
    amr: s.amr,
    userAgent: s.user_agent,
    ip: s.ip,
    createdAt: iso(s.created_at)!,
    lastUsedAt: iso(s.last_used_at)!,
    expiresAt: iso(s.expires_at)!,
    revokedAt: iso(s.revoked_at),
    revokeReason: s.revoke_reason,
  }));
}
