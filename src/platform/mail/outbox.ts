import { sql } from 'kysely';
import { asSite, asSystem } from '../../kernel/tenancy/site.ts';
import type { Db } from '../../kernel/db/database.ts';

export interface Mail {
  siteId: string;
  to: string;
  subject: string;
  body: string;
  /** What the mail is for (verify-email, reset-password, account-exists, invite, marketing …). */
  kind: string;
  /** Extra headers sent with the mail, in this order (List-Unsubscribe of marketing mail). */
  headers?: MailHeader[];
}

/** One extra header: a field name (printable ASCII without `:`) and a one-line value. */
export interface MailHeader {
  key: string;
  value: string;
}

const FIELD_NAME = /^[!-9;-~]{1,76}$/;
// Extra headers never carry a line break (no header injection) or another control character.
// eslint-disable-next-line no-control-regex
const ONE_LINE = /^[^\u0000-\u001f\u007f]{0,4000}$/;

function headersJson(headers: MailHeader[] | undefined): string | null {
  if (!headers?.length) return null;
  for (const h of headers)
    if (!FIELD_NAME.test(h.key) || !ONE_LINE.test(h.value))
      throw new Error(`invalid mail header ${JSON.stringify(h.key)}`);
  return JSON.stringify(headers.map((h) => ({ key: h.key, value: h.value })));
}

export interface OutboxEntry extends Mail {
  id: string;
  headers: MailHeader[];
  createdAt: string;
  sentAt: string | null;
  attempts: number;
  lastError: string | null;
}

/**
 * Queues a mail. With SMTP_URL the sender delivers it; without, the outbox is where it stays. Admins read it
 * either way (GET /api/v1/admin/outbox).
 */
export async function queueMail(db: Db, mail: Mail): Promise<void> {
  const headers = headersJson(mail.headers);
  await asSite(db, mail.siteId, (db) =>
    sql`insert into outbox (site_id, to_address, subject, body, kind, headers)
        values (${mail.siteId}, ${mail.to}, ${mail.subject}, ${mail.body}, ${mail.kind}, ${headers}::jsonb)`.execute(
      db,
    ),
  );
}

/** Newest first; `to` filters by recipient (case-insensitive). */
export async function listOutbox(db: Db, opts: { to?: string; limit: number }): Promise<OutboxEntry[]> {
  // The outbox of every site: instance admins read it.
  const r = await asSystem(db, (db) =>
    sql<{
      id: string;
      site_id: string;
      to_address: string;
      subject: string;
      body: string;
      kind: string;
      created_at: Date;
      sent_at: Date | null;
      attempts: number;
      last_error: string | null;
      headers: MailHeader[] | null;
    }>`select * from outbox ${opts.to ? sql`where lower(to_address) = lower(${opts.to})` : sql``}
     order by id desc limit ${opts.limit}`.execute(db),
  );
  return r.rows.map((x) => ({
    id: String(x.id),
    siteId: x.site_id,
    to: x.to_address,
    subject: x.subject,
    body: x.body,
    kind: x.kind,
    createdAt: new Date(x.created_at).toISOString(),
    sentAt: x.sent_at ? new Date(x.sent_at).toISOString() : null,
    attempts: x.attempts,
    lastError: x.last_error,
    headers: x.headers ?? [],
  }));
}

/** Erasure: mail to an address keeps its row (what was sent, when) but no longer names or quotes the person. */
export async function scrubOutbox(db: Db, address: string): Promise<number> {
  const r = await asSystem(db, (db) =>
    sql`update outbox set to_address = '[erased]', subject = '[erased]', body = '[erased]'
        where lower(to_address) = lower(${address})`.execute(db),
  );
  return Number(r.numAffectedRows ?? 0);
}

/**
 * Deletes the site's mails that are done with before `before`: sent then, or given up on (`maxAttempts` failed
 * tries) and queued then. A mail still waiting to be sent stays whatever its age. Answers how many went.
 */
export async function pruneOutbox(db: Db, siteId: string, before: Date, maxAttempts: number): Promise<number> {
  const r = await asSite(db, siteId, (db) =>
    sql<{ id: string }>`delete from outbox
      where site_id = ${siteId}
        and ((sent_at is not null and sent_at < ${before})
          or (sent_at is null and attempts >= ${maxAttempts} and created_at < ${before}))
      returning id`.execute(db),
  );
  return r.rows.length;
}

/** Attempts before a mail is left unsent for good, unless the sender is told otherwise. */
export const MAIL_MAX_ATTEMPTS = 8;
