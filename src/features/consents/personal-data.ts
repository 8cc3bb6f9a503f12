import type { AppDeps } from '../../deps.ts';
import type { PersonalDataPart } from '../../platform/privacy/personal-data.ts';
import { consentAt, consentHistory, restrictionOf, type ConsentChange } from './consent.commands.ts';
import { CONSENT_TYPES } from '../../contracts/consents/consent.events.ts';

const HISTORY_PAGE = 500;

/** The person's consents with their history, and their restriction of processing, per site of the export. */
export function consentsPersonalData(deps: Pick<AppDeps, 'store'>): PersonalDataPart[] {
  return [
    {
      name: 'consents',
      async write(subject, out) {
        for (const site of subject.siteIds)
          for (const type of CONSENT_TYPES) {
            const current = await consentAt(deps, site, subject.userId, type);
            const history: ConsentChange[] = [];
            // Read a page at a time; a consent's history is short enough to be one value of the export.
            for (let offset = 0, total = 1; offset < total; offset += HISTORY_PAGE) {
              const page = await consentHistory(deps, site, subject.userId, type, { limit: HISTORY_PAGE, offset });
              history.push(...page.changes);
              total = page.total;
            }
            if (current || history.length) await out.item({ site, consentType: type, current, history });
          }
      },
    },
    {
      name: 'restriction',
      async write(subject, out) {
        for (const site of subject.siteIds)
          await out.item({ site, ...(await restrictionOf(deps, site, subject.userId)) });
      },
    },
  ];
}
