import { assertNever, type Decider } from '../../kernel/es/decider.ts';
import { IssuerAlreadyExists } from './issuer.errors.ts';
import type { IssuerClaimEvent } from '../../contracts/issuers/issuer.events.ts';

/** Take an `iss` value for an issuer of the site: the first claim wins (409 ISSUER_ALREADY_EXISTS). */
export type ClaimIssuer = { type: 'ClaimIssuer'; data: { issuerId: string; iss: string; now: string } };
/** Let the value go, if this issuer holds it. */
export type ReleaseIssuer = { type: 'ReleaseIssuer'; data: { issuerId: string; now: string } };
export type IssuerClaimCommand = ClaimIssuer | ReleaseIssuer;

export const issuerClaimDecider: Decider<{ issuerId: string | null }, IssuerClaimCommand, IssuerClaimEvent> = {
  initialState: () => ({ issuerId: null }),
  evolve: (_s, e) => ({ issuerId: e.type === 'TrustedIssuerClaimed' ? e.data.issuerId : null }),
  decide: (cmd, s) => {
    const { issuerId, now } = cmd.data;
    switch (cmd.type) {
      case 'ClaimIssuer':
        if (s.issuerId === issuerId) return [];
        if (s.issuerId) throw new IssuerAlreadyExists({ iss: cmd.data.iss, issuerId: s.issuerId });
        return [{ type: 'TrustedIssuerClaimed', data: { issuerId, at: now } }];
      case 'ReleaseIssuer':
        return s.issuerId === issuerId ? [{ type: 'TrustedIssuerReleased', data: { issuerId, at: now } }] : [];
      default:
        return assertNever(cmd);
    }
  },
};
