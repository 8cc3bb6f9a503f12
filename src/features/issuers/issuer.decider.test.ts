import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fold } from '../../kernel/es/decider.ts';
import { deciderSpec, runCommands } from '../../../test/support/decider-spec.ts';
import { issuerClaimDecider } from './issuer-claim.decider.ts';
import { issuerDecider, type IssuerCommand } from './issuer.decider.ts';
import type { IssuerEvent } from '../../contracts/issuers/issuer.events.ts';
import { validateIssuer, type TrustedIssuerConfig } from '../../contracts/issuers/issuer.schema.ts';

const given = deciderSpec(issuerDecider);
const now = '2026-03-01T10:00:00.000Z';
const ids = { issuerId: 'i1', siteId: 'main' };
const input = {
  issuer: 'https://idp.example.com/',
  jwksUri: 'https://idp.example.com/jwks',
  audience: 'svc',
  algorithms: ['RS256'],
  roleMapping: { editors: { systemKey: 'editor' } },
};
const config: TrustedIssuerConfig = validateIssuer(input);
const registered: IssuerEvent = { type: 'TrustedIssuerRegistered', data: { ...ids, config, at: now } };
const removed: IssuerEvent = { type: 'TrustedIssuerRemoved', data: { ...ids, at: now } };
const update = (patch: Record<string, unknown>, expectedIssuer = config.issuer): IssuerCommand => ({
  type: 'UpdateIssuer',
  data: { ...ids, patch, expectedIssuer, now },
});

describe('Trusted issuer', () => {
  describe('when absent', () => {
    it('registers the record with its defaults', () =>
      given([])
        .when({ type: 'RegisterIssuer', data: { ...ids, config: input, now } })
        .then([
          {
            type: 'TrustedIssuerRegistered',
            data: {
              ...ids,
              config: {
                ...input,
                algorithms: ['RS256'],
                discoveryUrl: null,
                claimMapping: { email: 'email', roles: 'roles', externalId: 'sub' },
                roleMapping: { editors: { systemKey: 'editor' } },
                defaultRoleId: null,
                jitProvisioning: false,
                clockSkewSeconds: 60,
                enabled: true,
              },
              at: now,
            },
          },
        ]));
    it.each([
      ['HS256', { algorithms: ['HS256'] }],
      ['none', { algorithms: ['none'] }],
      ['clockSkewSeconds over 300', { clockSkewSeconds: 301 }],
      ['no key source', { jwksUri: undefined }],
    ])('refuses %s with VALIDATION_FAILED (422)', (_name, over) => {
      given([])
        .when({ type: 'RegisterIssuer', data: { ...ids, config: { ...input, ...over }, now } })
        .thenThrows('VALIDATION_FAILED');
      expect(() => validateIssuer({ ...input, ...over })).toThrow(expect.objectContaining({ status: 422 }));
    });
    it('rejects an update with NOT_FOUND', () =>
      given([])
        .when(update({ enabled: false }))
        .thenThrows('NOT_FOUND'));
  });

  describe('when registered', () => {
    it('rejects a second registration with CONFLICT', () =>
      given([registered])
        .when({ type: 'RegisterIssuer', data: { ...ids, config: input, now } })
        .thenThrows('CONFLICT'));
    it('records the whole merged record on update', () =>
      given([registered])
        .when(update({ enabled: false, defaultRoleId: 'viewer' }))
        .then([
          {
            type: 'TrustedIssuerUpdated',
            data: { ...ids, config: { ...config, enabled: false, defaultRoleId: 'viewer' }, at: now },
          },
        ]));
    it('re-validates the merged record', () =>
      given([registered])
        .when(update({ discoveryUrl: 'https://idp.example.com/.well-known/openid-configuration' }))
        .thenThrows('VALIDATION_FAILED'));
    it('emits nothing for an update that changes nothing', () =>
      given([registered])
        .when(update({ enabled: true, audience: 'svc' }))
        .then([]));
    it('refuses a change made against an issuer value that has moved', () =>
      given([registered])
        .when(update({ enabled: false }, 'https://old.example.com/'))
        .thenThrows('CONFLICT'));
    it('removes the issuer', () =>
      given([registered])
        .when({ type: 'RemoveIssuer', data: { ...ids, expectedIssuer: config.issuer, now } })
        .then([removed]));
  });

  describe('when removed', () => {
    it('rejects update and removal with NOT_FOUND', () => {
      given([registered, removed])
        .when(update({ enabled: false }))
        .thenThrows('NOT_FOUND');
      given([registered, removed])
        .when({ type: 'RemoveIssuer', data: { ...ids, expectedIssuer: config.issuer, now } })
        .thenThrows('NOT_FOUND');
    });
  });

  const commandArb: fc.Arbitrary<IssuerCommand> = fc.oneof(
    fc.record({
      type: fc.constant('RegisterIssuer' as const),
      data: fc.record({
        ...{ issuerId: fc.constant('i1'), siteId: fc.constant('main'), now: fc.constant(now) },
        config: fc.record({
          issuer: fc.constant(input.issuer),
          jwksUri: fc.constant(input.jwksUri),
          audience: fc.constantFrom('svc', ['svc', 'alt']),
          algorithms: fc.subarray(['RS256', 'ES256', 'HS256', 'none']),
          clockSkewSeconds: fc.integer({ min: -5, max: 400 }),
        }),
      }),
    }),
    fc.record({
      type: fc.constant('UpdateIssuer' as const),
      data: fc.record({
        ...{ issuerId: fc.constant('i1'), siteId: fc.constant('main'), now: fc.constant(now) },
        expectedIssuer: fc.constantFrom(config.issuer, 'https://other.example.com/'),
        patch: fc.record(
          {
            issuer: fc.constantFrom(config.issuer, 'https://other.example.com/'),
            enabled: fc.boolean(),
            clockSkewSeconds: fc.integer({ min: 0, max: 400 }),
            algorithms: fc.subarray(['RS256', 'ES256', 'HS256'] as never[]),
            defaultRoleId: fc.constantFrom('viewer', null),
          },
          { requiredKeys: [] },
        ),
      }),
    }),
    fc.constant<IssuerCommand>({ type: 'RemoveIssuer', data: { ...ids, expectedIssuer: config.issuer, now } }),
  );

  it('folding the accepted events gives the state reached step by step', () =>
    fc.assert(
      fc.property(fc.array(commandArb, { maxLength: 20 }), (commands) => {
        const { state, events } = runCommands(issuerDecider, commands);
        expect(fold(issuerDecider, events)).toEqual(state);
      }),
    ));

  it('never holds a record that fails validation', () =>
    fc.assert(
      fc.property(fc.array(commandArb, { maxLength: 20 }), (commands) => {
        const { state } = runCommands(issuerDecider, commands);
        if (state.status !== 'absent') expect(validateIssuer(state.config)).toEqual(state.config);
      }),
    ));
});

describe('Issuer claim', () => {
  const claimGiven = deciderSpec(issuerClaimDecider);
  const claimed = { type: 'TrustedIssuerClaimed' as const, data: { issuerId: 'i1', at: now } };
  it('lets the first issuer claim a value', () =>
    claimGiven([])
      .when({ type: 'ClaimIssuer', data: { issuerId: 'i1', iss: 'x', now } })
      .then([claimed]));
  it('refuses another issuer with ISSUER_ALREADY_EXISTS', () =>
    claimGiven([claimed])
      .when({ type: 'ClaimIssuer', data: { issuerId: 'i2', iss: 'x', now } })
      .thenThrows('ISSUER_ALREADY_EXISTS'));
  it('frees the value on release by its holder only', () => {
    claimGiven([claimed])
      .when({ type: 'ReleaseIssuer', data: { issuerId: 'i2', now } })
      .then([]);
    claimGiven([claimed])
      .when({ type: 'ReleaseIssuer', data: { issuerId: 'i1', now } })
      .then([{ type: 'TrustedIssuerReleased', data: { issuerId: 'i1', at: now } }]);
  });
  it('lets another issuer claim a released value', () =>
    claimGiven([claimed, { type: 'TrustedIssuerReleased', data: { issuerId: 'i1', at: now } }])
      .when({ type: 'ClaimIssuer', data: { issuerId: 'i2', iss: 'x', now } })
      .then([{ type: 'TrustedIssuerClaimed', data: { issuerId: 'i2', at: now } }]));
});
