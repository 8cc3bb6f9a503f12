import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fold } from '../../kernel/es/decider.ts';
import { deciderSpec, runCommands } from '../../../test/support/decider-spec.ts';
import { emailClaimDecider, type ClaimEmail } from './email-claim.decider.ts';
import type { EmailClaimed } from '../../contracts/auth/user.events.ts';

const given = deciderSpec(emailClaimDecider);
const now = '2026-03-01T10:00:00.000Z';
const claim = (userId: string): ClaimEmail => ({ type: 'ClaimEmail', data: { userId, now } });
const claimed = (userId: string): EmailClaimed => ({ type: 'EmailClaimed', data: { userId, at: now } });

describe('EmailClaim', () => {
  describe('when the address is free', () => {
    it('claims it for the user', () =>
      given([])
        .when(claim('u1'))
        .then([claimed('u1')]));
  });

  describe('when the address is claimed', () => {
    it('refuses another user with CONFLICT', () =>
      given([claimed('u1')])
        .when(claim('u2'))
        .thenThrows('CONFLICT'));
    it('refuses the same user again with CONFLICT', () =>
      given([claimed('u1')])
        .when(claim('u1'))
        .thenThrows('CONFLICT'));
  });

  it('evolve keeps the claimant', () => expect(fold(emailClaimDecider, [claimed('u1')])).toEqual({ userId: 'u1' }));

  it('the first claim wins whatever follows', () =>
    fc.assert(
      fc.property(fc.array(fc.constantFrom('u1', 'u2', 'u3'), { minLength: 1, maxLength: 10 }), (users) => {
        const { state, events } = runCommands(emailClaimDecider, users.map(claim));
        expect(events).toEqual([claimed(users[0]!)]);
        expect(fold(emailClaimDecider, events)).toEqual(state);
      }),
    ));
});
