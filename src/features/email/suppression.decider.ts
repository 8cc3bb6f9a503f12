import type { Decider } from '../../kernel/es/decider.ts';
import type { Sealed } from '../../platform/privacy/pii.ts';
import { NotSuppressed } from './email.errors.ts';
import type { SuppressionEvent, SuppressionSource } from '../../contracts/email/email.events.ts';

/** One address of one site: suppressed (how, why, when) or not. */
export type SuppressionState =
  | { suppressed: false }
  | { suppressed: true; email: Sealed; source: SuppressionSource; reason: string | null; at: string };

/** Puts the address on the site's list; nothing happens when it is there already (idempotent). */
export type SuppressAddress = {
  type: 'SuppressAddress';
  data: { emailHash: string; email: Sealed; source: SuppressionSource; reason: string | null; now: string; by: string };
};
/** Takes the address off the list; 404 when it is not on it. */
export type UnsuppressAddress = { type: 'UnsuppressAddress'; data: { emailHash: string; now: string; by: string } };
export type SuppressionCommand = SuppressAddress | UnsuppressAddress;

function decide(cmd: SuppressionCommand, s: SuppressionState): SuppressionEvent[] {
  switch (cmd.type) {
    case 'SuppressAddress': {
      if (s.suppressed) return [];
      const { emailHash, email, reason, now: at, by, source } = cmd.data;
      const data = { emailHash, email, reason, at, by };
      return [{ type: source === 'admin' ? 'email_suppressed' : 'email_unsubscribed', data }];
    }
    case 'UnsuppressAddress': {
      if (!s.suppressed) throw new NotSuppressed();
      const { emailHash, now: at, by } = cmd.data;
      return [{ type: 'email_unsuppressed', data: { emailHash, at, by } }];
    }
  }
}

function evolve(_s: SuppressionState, e: SuppressionEvent): SuppressionState {
  switch (e.type) {
    case 'email_suppressed':
    case 'email_unsubscribed': {
      const source = e.type === 'email_suppressed' ? 'admin' : 'unsubscribe';
      return { suppressed: true, email: e.data.email, source, reason: e.data.reason, at: e.data.at };
    }
    case 'email_unsuppressed':
      return { suppressed: false };
  }
}

/** An address's suppression on one site: pure; the sealed address, time and actor arrive in the command. */
export const suppressionDecider: Decider<SuppressionState, SuppressionCommand, SuppressionEvent> = {
  initialState: () => ({ suppressed: false }),
  decide,
  evolve,
};
