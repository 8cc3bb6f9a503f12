import { assertNever, type Decider } from '../../kernel/es/decider.ts';
import { IssuerChangedMeanwhile, IssuerExists, IssuerNotFound } from './issuer.errors.ts';
import type { IssuerEvent } from '../../contracts/issuers/issuer.events.ts';
import { validateIssuer, type IssuerPatch, type TrustedIssuerConfig } from '../../contracts/issuers/issuer.schema.ts';

export type IssuerState =
  | { status: 'absent' }
  | { status: 'active'; config: TrustedIssuerConfig }
  | { status: 'removed'; config: TrustedIssuerConfig };

/** Trust an external issuer on a site; the record is validated here too (422 VALIDATION_FAILED). */
export type RegisterIssuer = {
  type: 'RegisterIssuer';
  data: { issuerId: string; siteId: string; config: unknown; now: string };
};
/**
 * Change a trusted issuer: the patch is merged over the record and the result validated again. `expectedIssuer`
 * is the `iss` value the caller claimed streams for: if it moved meanwhile, the command is refused.
 */
export type UpdateIssuer = {
  type: 'UpdateIssuer';
  data: { issuerId: string; siteId: string; patch: IssuerPatch; expectedIssuer: string; now: string };
};
/** Remove a trusted issuer; `expectedIssuer` as for UpdateIssuer. */
export type RemoveIssuer = {
  type: 'RemoveIssuer';
  data: { issuerId: string; siteId: string; expectedIssuer: string; now: string };
};
export type IssuerCommand = RegisterIssuer | UpdateIssuer | RemoveIssuer;

function merge(config: TrustedIssuerConfig, patch: IssuerPatch): Record<string, unknown> {
  const defined = Object.entries(patch).filter(([, v]) => v !== undefined);
  return { ...config, ...Object.fromEntries(defined) };
}

export const issuerDecider: Decider<IssuerState, IssuerCommand, IssuerEvent> = {
  initialState: () => ({ status: 'absent' }),
  evolve: (s, e) => {
    switch (e.type) {
      case 'TrustedIssuerRegistered':
      case 'TrustedIssuerUpdated':
        return { status: 'active', config: e.data.config };
      case 'TrustedIssuerRemoved':
        return s.status === 'absent' ? s : { status: 'removed', config: s.config };
      default:
        return assertNever(e);
    }
  },
  decide: (cmd, s) => {
    const { issuerId, siteId, now } = cmd.data;
    switch (cmd.type) {
      case 'RegisterIssuer': {
        if (s.status !== 'absent') throw new IssuerExists({ issuerId });
        const config = validateIssuer(cmd.data.config);
        return [{ type: 'TrustedIssuerRegistered', data: { issuerId, siteId, config, at: now } }];
      }
      case 'UpdateIssuer': {
        if (s.status !== 'active') throw new IssuerNotFound({ issuerId });
        if (s.config.issuer !== cmd.data.expectedIssuer) throw new IssuerChangedMeanwhile();
        const config = validateIssuer(merge(s.config, cmd.data.patch));
        if (JSON.stringify(config) === JSON.stringify(s.config)) return [];
        return [{ type: 'TrustedIssuerUpdated', data: { issuerId, siteId, config, at: now } }];
      }
      case 'RemoveIssuer':
        if (s.status !== 'active') throw new IssuerNotFound({ issuerId });
        if (s.config.issuer !== cmd.data.expectedIssuer) throw new IssuerChangedMeanwhile();
        return [{ type: 'TrustedIssuerRemoved', data: { issuerId, siteId, at: now } }];
      default:
        return assertNever(cmd);
    }
  },
};
