import { sql, type Kysely } from 'kysely';
import { withSystem } from '../../kernel/tenancy/site.ts';
import nodemailer from 'nodemailer';
import type { Logger } from 'pino';
import type { DB } from '../../kernel/db/database.ts';
import { MAIL_MAX_ATTEMPTS, type MailHeader } from '../../platform/mail/outbox.ts';

export interface MailSenderOptions {
  db: Kysely<DB>;
  /** smtp://user:pass@host:port or smtps://… (nodemailer's connection URL). */
  url: string;
  from: string;
  log: Logger;
  pollMs?: number;
  /** Attempts before a mail is left unsent for good (it stays readable in the outbox). */
  maxAttempts?: number;
}

const BATCH = 20;
/**
 * Delivers the outbox over SMTP: unsent mails are claimed a batch at a time (`for update skip locked`, so
 * several nodes never send one twice), sent, and marked sent; a failure is retried with a growing delay.
 */
export function startMailSender(opts: MailSenderOptions): { stop(): Promise<void>; flush(): Promise<number> } {
  const transport = nodemailer.createTransport(opts.url);
  const pollMs = opts.pollMs ?? 1000;
  const maxAttempts = opts.maxAttempts ?? MAIL_MAX_ATTEMPTS;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();

  // Claim a batch with a five-minute lease (one short statement; no transaction is held while SMTP talks), send
  // each mail, then mark it sent, or failed with a growing delay before the next attempt.
  const sendBatch = async (): Promise<number> => {
    // The outbox of every site: instance-level work.
    const due = await withSystem(opts.db, (trx) =>
      sql<{
        id: string;
        to_address: string;
        subject: string;
        body: string;
        attempts: number;
        headers: MailHeader[] | null;
      }>`
      update outbox set next_attempt_at = now() + interval '5 minutes'
      where id in (
        select id from outbox where sent_at is null and next_attempt_at <= now() and attempts < ${maxAttempts}
        order by id limit ${BATCH} for update skip locked)
      returning id, to_address, subject, body, attempts, headers`.execute(trx),
    );
    for (const m of due.rows) {
      try {
        const headers = m.headers?.map((h) => ({ key: h.key, value: h.value }));
        await transport.sendMail({ from: opts.from, to: m.to_address, subject: m.subject, text: m.body, headers });
        await withSystem(opts.db, (trx) =>
          sql`update outbox set sent_at = now(), attempts = attempts + 1, last_error = null where id = ${m.id}`.execute(
            trx,
          ),
        );
      } catch (err) {
        const delayS = Math.min(3600, 30 * 2 ** m.attempts);
        await withSystem(opts.db, (trx) =>
          sql`update outbox set attempts = attempts + 1, last_error = ${(err as Error).message.slice(0, 500)},
                  next_attempt_at = now() + make_interval(secs => ${delayS}) where id = ${m.id}`.execute(trx),
        );
        opts.log.warn({ err, mail: m.id }, 'mail delivery failed; will retry');
      }
    }
    return due.rows.length;
  };

  const flush = async (): Promise<number> => {
    let total = 0;
    for (let n = await sendBatch(); n > 0; n = await sendBatch()) total += n;
    return total;
  };

  const tick = (): void => {
    if (stopped) return;
    running = flush()
      .catch((err) => opts.log.error({ err }, 'mail sender failed; retrying'))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, pollMs);
      });
  };
  tick();

  return {
    flush: () => {
      const next = running.then(flush, flush);
      running = next.catch(() => undefined);
      return next;
    },
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
      transport.close();
    },
  };
}
