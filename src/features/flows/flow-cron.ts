import { Cron } from 'croner';

/** Characters a field of a 5-field expression may hold (numbers, names, `*`, `,`, `-`, `/`, and croner's `L W # ?`). */
const FIELD = /^[0-9A-Za-z*,/\-?#]{1,64}$/;

export type CronCheck = { ok: true; nextRunAt: Date } | { ok: false; reason: string };

/**
 * A schedule's cron expression, checked with croner: exactly five fields (minute, hour, day of month, month, day of
 * week) read in UTC; no seconds field, no `@daily` nicknames (croner would accept both, as cron-parser accepts
 * four fields). An expression that parses but never fires (30 February) is refused too. The next firing strictly
 * after `now` comes back.
 */
export function checkCron(expression: string, now: Date): CronCheck {
  if (expression.length > 200) return { ok: false, reason: 'longer than 200 characters' };
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5 || fields.some((f) => !FIELD.test(f)))
    return { ok: false, reason: 'a schedule takes exactly 5 fields: minute hour day-of-month month day-of-week (UTC)' };
  let job: Cron;
  try {
    job = new Cron(fields.join(' '), { timezone: 'UTC', paused: true });
  } catch (err) {
    return { ok: false, reason: (err as Error).message.replace(/^CronPattern: /, '') };
  }
  const next = job.nextRun(now);
  job.stop();
  return next ? { ok: true, nextRunAt: next } : { ok: false, reason: 'the expression never fires' };
}

/** The next firing after `now`, or null (the expression is invalid or never fires). */
export function nextCronRun(expression: string, now: Date): Date | null {
  const r = checkCron(expression, now);
  return r.ok ? r.nextRunAt : null;
}
