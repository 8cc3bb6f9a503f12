import { assertNever, type Decider } from '../../kernel/es/decider.ts';
import type { ConsentEvent, ConsentType, RestrictionEvent } from '../../contracts/consents/consent.events.ts';

/** The consent record of the spec ("Consent"), or null before the person ever chose. */
export interface ConsentRecord {
  consentType: ConsentType;
  granted: boolean;
  grantedAt: string | null;
  withdrawnAt: string | null;
  source: string;
  version: string;
  updatedAt: string;
}
export type ConsentState = ConsentRecord | null;

export type SetConsent = {
  type: 'SetConsent';
  data: { userId: string; consentType: ConsentType; granted: boolean; source: string; version: string; now: string };
};

/**
 * A consent's decisions: granting appends `consent_granted` (again when the text version or the source changes: a
 * new consent to a new text), withdrawing appends `consent_withdrawn` once; a choice that changes nothing appends
 * nothing.
 */
export const consentDecider: Decider<ConsentState, SetConsent, ConsentEvent> = {
  initialState: () => null,
  evolve(s, e) {
    switch (e.type) {
      case 'consent_granted':
        return {
          consentType: e.data.consentType,
          granted: true,
          grantedAt: e.data.at,
          withdrawnAt: null,
          source: e.data.source,
          version: e.data.version,
          updatedAt: e.data.at,
        };
      case 'consent_withdrawn':
        return {
          consentType: e.data.consentType,
          granted: false,
          grantedAt: s?.grantedAt ?? null,
          withdrawnAt: e.data.at,
          source: e.data.source,
          version: e.data.version,
          updatedAt: e.data.at,
        };
      default:
        return assertNever(e);
    }
  },
  decide(cmd, s) {
    const { now, granted, ...d } = cmd.data;
    const data = { ...d, at: now };
    if (granted) {
      if (s?.granted && s.version === d.version && s.source === d.source) return [];
      return [{ type: 'consent_granted', data }];
    }
    if (s && !s.granted) return [];
    // A first choice that is a refusal is recorded too: the log shows the person was asked and said no.
    return [{ type: 'consent_withdrawn', data }];
  },
};

export interface RestrictionState {
  restricted: boolean;
  reason: string | null;
  updatedAt: string | null;
}
export type SetRestriction = {
  type: 'SetRestriction';
  data: { userId: string; restricted: boolean; reason: string | null; now: string };
};

/** Restriction of processing: on with a reason (a changed reason is recorded), off; the same choice appends nothing. */
export const restrictionDecider: Decider<RestrictionState, SetRestriction, RestrictionEvent> = {
  initialState: () => ({ restricted: false, reason: null, updatedAt: null }),
  evolve(_s, e) {
    switch (e.type) {
      case 'ProcessingRestricted':
        return { restricted: true, reason: e.data.reason, updatedAt: e.data.at };
      case 'ProcessingRestrictionLifted':
        return { restricted: false, reason: null, updatedAt: e.data.at };
      default:
        return assertNever(e);
    }
  },
  decide(cmd, s) {
    const { userId, restricted, reason, now } = cmd.data;
    if (restricted) {
      if (s.restricted && s.reason === reason) return [];
      return [{ type: 'ProcessingRestricted', data: { userId, reason, at: now } }];
    }
    if (!s.restricted) return [];
    return [{ type: 'ProcessingRestrictionLifted', data: { userId, at: now } }];
  },
};
