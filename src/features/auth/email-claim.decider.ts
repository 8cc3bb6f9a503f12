import type { Decider } from '../../kernel/es/decider.ts';
import type { EmailClaimed } from '../../contracts/auth/user.events.ts';
import { EmailTaken } from './auth.errors.ts';

/** One stream per address: the first claim wins, so two sign-ups cannot share an address. */
export type ClaimEmail = { type: 'ClaimEmail'; data: { userId: string; now: string } };

export const emailClaimDecider: Decider<{ userId: string | null }, ClaimEmail, EmailClaimed> = {
  initialState: () => ({ userId: null }),
  evolve: (_s, e) => ({ userId: e.data.userId }),
  decide: (cmd, s) => {
    if (s.userId) throw new EmailTaken();
    return [{ type: 'EmailClaimed', data: { userId: cmd.data.userId, at: cmd.data.now } }];
  },
};
