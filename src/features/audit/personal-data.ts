import type { AppDeps } from '../../deps.ts';
import type { PersonalDataPart, PartWriter } from '../../platform/privacy/personal-data.ts';
import { subjectOpener } from '../../platform/privacy/pii.ts';
import { dictFrom } from '../../kernel/safe/keys.ts';
import { readAsSite, SYSTEM_SITE } from '../../kernel/tenancy/site.ts';
import { subjectEvents, type SubjectEventQuery } from '../../../projections/event-log/index.ts';
import { redactIp } from '../../../projections/sessions/index.ts';
import { agentRevisionsOfCreator, type RevisionCursor } from '../../../projections/item-revisions/index.ts';
import { userStream } from '../../contracts/auth/user.events.ts';
import { isSecretName, REDACTED } from './redact.ts';

/** Events per page: a page is all the export holds of the log at once. */
export const EVENT_PAGE = 1000;
const DECISION_PAGE = 200;

type Open = (sealed: string) => string | null;

/**
 * An event's data as its subject receives it: values sealed with their own key in clear, values sealed for
 * someone else still sealed, and secrets (password hashes, token material, seeds) `[redacted]` whoever they belong
 * to. Built on null-prototype objects: keys from the log never reach a prototype.
 */
export function subjectView(value: unknown, open: Open, depth = 0): unknown {
  if (typeof value === 'string') return value.startsWith('pii:') ? (open(value) ?? value) : value;
  if (value === null || typeof value !== 'object' || depth > 64) return value;
  if (Array.isArray(value)) return value.map((v) => subjectView(v, open, depth + 1));
  return dictFrom(Object.entries(value).map(([k, v]) => [k, field(k, v, open, depth)]));
}

function field(name: string, value: unknown, open: Open, depth: number): unknown {
  if (value === null) return null;
  if (isSecretName(name)) return REDACTED;
  // A login's address and user agent, as the sessions part shows them: the network, never the whole string.
  if (name === 'userAgent') return REDACTED;
  const v = subjectView(value, open, depth + 1);
  return name === 'ip' && typeof v === 'string' ? (redactIp(v) ?? REDACTED) : v;
}

async function writeEvents(
  deps: Pick<AppDeps, 'db' | 'config'>,
  site: string,
  query: Omit<SubjectEventQuery, 'after' | 'limit'>,
  open: Open,
  out: PartWriter,
): Promise<void> {
  let after: string | null = null;
  for (;;) {
    const page = await readAsSite(deps.db, site, (db) =>
      subjectEvents(db, site, { ...query, after, limit: EVENT_PAGE }),
    );
    for (const e of page)
      await out.item({
        id: e.event_id,
        type: e.type,
        site,
        stream: e.stream_id,
        version: e.stream_version,
        time: new Date(e.created_at).toISOString(),
        actor: e.metadata.actor,
        correlationId: e.metadata.correlationId,
        data: subjectView(e.data, open),
      });
    if (page.length < EVENT_PAGE) return;
    after = page.at(-1)!.pos;
  }
}

/**
 * The log's part of a personal-data export (every event the subject caused, and every event of their own user
 * stream) and the automated decisions about them (what agents changed in content they created).
 */
export function auditPersonalData(deps: Pick<AppDeps, 'db' | 'config'>): PersonalDataPart[] {
  return [
    {
      name: 'automated_decisions',
      async write(subject, out) {
        for (const site of subject.siteIds) {
          let after: RevisionCursor | null = null;
          for (;;) {
            const page = await readAsSite(deps.db, site, (db) =>
              agentRevisionsOfCreator(db, site, subject.userId, { limit: DECISION_PAGE, after }),
            );
            for (const r of page) await out.item({ site, ...r });
            if (page.length < DECISION_PAGE) break;
            after = { at: page.at(-1)!.timestamp, id: page.at(-1)!.id };
          }
        }
      },
    },
    {
      name: 'events',
      async write(subject, out) {
        const open = await subjectOpener(deps.db, deps.config.keyring, subject.userId);
        // Instance-wide events that name another site stay out of one site's request.
        const dataSites = subject.everySite ? undefined : subject.siteIds;
        await writeEvents(deps, SYSTEM_SITE, { actor: subject.userId, dataSites }, open, out);
        const own = { stream: userStream(subject.userId), excludeActor: subject.userId, dataSites };
        await writeEvents(deps, SYSTEM_SITE, own, open, out);
        for (const site of subject.siteIds) await writeEvents(deps, site, { actor: subject.userId }, open, out);
      },
    },
  ];
}
