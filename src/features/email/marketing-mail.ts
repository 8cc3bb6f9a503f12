import type { AppDeps } from '../../deps.ts';
import { queueMail } from '../../platform/mail/outbox.ts';
import { findUserByEmail } from '../../../projections/users/index.ts';
import { restrictedPeople } from '../consents/index.ts';
import { addressProblem } from './address.ts';
import { InvalidAddress } from './email.errors.ts';
import { isSuppressed } from './suppression.commands.ts';
import { unsubscribeUrl } from './unsubscribe-token.ts';

/** A marketing mail to one person of a site. */
export interface MarketingMail {
  siteId: string;
  to: string;
  subject: string;
  body: string;
}

/** Whether the mail went to the outbox, and why not. */
export type MarketingOutcome = { queued: true } | { queued: false; reason: 'suppressed' | 'restricted' };

/**
 * Queues a marketing mail unless the address is suppressed on the site, or belongs to a person who restricted
 * processing there (then nothing is written). The mail carries
 * RFC 8058 one-click headers: `List-Unsubscribe: <…/api/v1/email/unsubscribe?token=…>` and
 * `List-Unsubscribe-Post: List-Unsubscribe=One-Click`. Transactional mail (verification, reset, invitations) goes
 * through `queueMail` as before: no suppression check, no unsubscribe headers.
 */
export async function queueMarketingMail(
  deps: Pick<AppDeps, 'db' | 'store' | 'addresses' | 'tokens' | 'config'>,
  mail: MarketingMail,
): Promise<MarketingOutcome> {
  const problem = addressProblem(mail.to);
  if (problem) throw new InvalidAddress({ path: ['to'], ...problem });
  if (await isSuppressed(deps, mail.siteId, mail.to)) return { queued: false, reason: 'suppressed' };
  // A person who restricted the processing of their data on the site gets no marketing (GDPR Art. 18).
  const person = await findUserByEmail(deps.db, mail.to);
  if (person && (await restrictedPeople(deps, mail.siteId, [person.userId])).size > 0)
    return { queued: false, reason: 'restricted' };
  const url = await unsubscribeUrl(deps, mail.siteId, mail.to);
  await queueMail(deps.db, {
    ...mail,
    kind: 'marketing',
    headers: [
      { key: 'List-Unsubscribe', value: `<${url}>` },
      { key: 'List-Unsubscribe-Post', value: 'List-Unsubscribe=One-Click' },
    ],
  });
  return { queued: true };
}
