import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fold } from '../../kernel/es/decider.ts';
import { deciderSpec, runCommands } from '../../../test/support/decider-spec.ts';
import { apiKeyDecider, ROLE_RANK, type ApiKeyCommand, type CreateApiKey } from './api-key.decider.ts';
import type { ApiKeyCreated, ApiKeyEvent } from '../../contracts/api-keys/api-key.events.ts';

const given = deciderSpec(apiKeyDecider);
const now = '2026-03-01T10:00:00.000Z';
const create = (over: Partial<CreateApiKey['data']> = {}): CreateApiKey => ({
  type: 'CreateApiKey',
  data: {
    keyId: 'k1',
    siteId: 'main',
    name: 'Build server',
    role: 'editor',
    publishable: false,
    allowedOrigins: null,
    expiresAt: null,
    prefix: 'svck_k1_abcd',
    secretHash: 'ab'.repeat(32),
    createdBy: 'u1',
    creatorRole: 'site_admin',
    now,
    ...over,
  },
});
const created: ApiKeyCreated = {
  type: 'ApiKeyCreated',
  data: {
    keyId: 'k1',
    siteId: 'main',
    name: 'Build server',
    role: 'editor',
    publishable: false,
    allowedOrigins: null,
    expiresAt: null,
    prefix: 'svck_k1_abcd',
    secretHash: 'ab'.repeat(32),
    createdBy: 'u1',
    at: now,
  },
};
const revoke: ApiKeyCommand = { type: 'RevokeApiKey', data: { keyId: 'k1', siteId: 'main', by: 'u1', now } };
const revoked: ApiKeyEvent = { type: 'ApiKeyRevoked', data: { keyId: 'k1', siteId: 'main', by: 'u1', at: now } };

describe('ApiKey', () => {
  describe('when absent', () => {
    it('creates a secret key without the creator role in the event', () => given([]).when(create()).then([created]));
    it('creates a publishable read key locked to origins', () =>
      given([])
        .when(create({ publishable: true, role: 'viewer', allowedOrigins: ['https://shop.example.com'] }))
        .then([
          {
            ...created,
            data: { ...created.data, publishable: true, role: 'viewer', allowedOrigins: ['https://shop.example.com'] },
          },
        ]));
    it('rejects an unknown role with VALIDATION_FAILED', () =>
      given([])
        .when(create({ role: 'overlord' }))
        .thenThrows('VALIDATION_FAILED'));
    it('refuses a site admin an admin key with PERMISSION_DENIED', () =>
      given([])
        .when(create({ role: 'admin' }))
        .thenThrows('PERMISSION_DENIED'));
    it('lets an instance admin create an admin key', () =>
      given([])
        .when(create({ role: 'admin', creatorRole: 'admin' }))
        .then([{ ...created, data: { ...created.data, role: 'admin' } }]));
    it('rejects a publishable key with a writing role', () =>
      given([])
        .when(create({ publishable: true, role: 'editor', allowedOrigins: ['https://a.example'] }))
        .thenThrows('VALIDATION_FAILED'));
    it('rejects a publishable key without origins', () =>
      given([])
        .when(create({ publishable: true, role: 'viewer', allowedOrigins: [] }))
        .thenThrows('VALIDATION_FAILED'));
    it('rejects origins on a secret key', () =>
      given([])
        .when(create({ allowedOrigins: ['https://a.example'] }))
        .thenThrows('VALIDATION_FAILED'));
    it('rejects an expiry that is not in the future', () =>
      given([])
        .when(create({ expiresAt: now }))
        .thenThrows('VALIDATION_FAILED'));
    it('rejects a revoke with NOT_FOUND', () => given([]).when(revoke).thenThrows('NOT_FOUND'));
  });

  describe('when created', () => {
    it('rejects a second create with CONFLICT', () => given([created]).when(create()).thenThrows('CONFLICT'));
    it('revokes the key', () => given([created]).when(revoke).then([revoked]));
  });

  describe('when revoked', () => {
    it('revokes again without a new event', () => given([created, revoked]).when(revoke).then([]));
  });

  const commandArb: fc.Arbitrary<ApiKeyCommand> = fc.oneof(
    fc
      .record({
        role: fc.constantFrom(...ROLE_RANK, 'nobody'),
        creatorRole: fc.constantFrom('admin', 'site_admin'),
        publishable: fc.boolean(),
        allowedOrigins: fc.constantFrom<string[] | null>(null, [], ['https://a.example']),
        expiresAt: fc.constantFrom(null, '2026-01-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'),
      })
      .map((o) => create(o)),
    fc.constant(revoke),
  );

  it('folding the accepted events gives the state reached step by step', () =>
    fc.assert(
      fc.property(fc.array(commandArb, { maxLength: 20 }), (commands) => {
        const { state, events } = runCommands(apiKeyDecider, commands);
        expect(fold(apiKeyDecider, events)).toEqual(state);
      }),
    ));

  it('never creates a key stronger than its creator, nor a publishable key that can write', () =>
    fc.assert(
      fc.property(commandArb, (command) => {
        const { events } = runCommands(apiKeyDecider, [command]);
        for (const e of events) {
          if (e.type !== 'ApiKeyCreated' || command.type !== 'CreateApiKey') continue;
          expect(ROLE_RANK.indexOf(e.data.role as never)).toBeGreaterThanOrEqual(
            ROLE_RANK.indexOf(command.data.creatorRole as never),
          );
          if (e.data.publishable) expect(['viewer', 'subscriber', 'public']).toContain(e.data.role);
        }
      }),
    ));
});
