import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fold } from '../../kernel/es/decider.ts';
import { deciderSpec, runCommands } from '../../../test/support/decider-spec.ts';
import { gitDeliveryDecider, gitIntegrationDecider, type GitIntegrationCommand } from './git.decider.ts';
import type {
  GitDeliveryReceived,
  GitIntegrationCreated,
  GitIntegrationEvent,
} from '../../contracts/git/git.events.ts';

const given = deciderSpec(gitIntegrationDecider);
const t1 = '2026-03-01T10:00:00.000Z';
const t2 = '2026-03-02T10:00:00.000Z';
const syncConfig = { preview: true, branch: 'main', intentsPath: 'content/', previewTtlHours: 72 };
const definition = {
  integrationId: 'g1',
  provider: 'github' as const,
  repository: 'acme/site',
  baseUrl: null,
  authMethod: 'pat' as const,
  syncConfig,
  token: 'pii:dG9rZW4',
  webhookSecret: 'pii:c2VjcmV0',
};
const created: GitIntegrationCreated = { type: 'GitIntegrationCreated', data: { ...definition, at: t1, by: 'u1' } };
const create: GitIntegrationCommand = { type: 'CreateIntegration', data: created.data };
const app = { appId: '12', installationId: '34' };
const createdAsApp: GitIntegrationCreated = {
  type: 'GitIntegrationCreated',
  data: { ...definition, authMethod: 'app', token: null, app, appKey: 'pii:a2V5', at: t1, by: 'u1' },
};
type Update = Extract<GitIntegrationCommand, { type: 'UpdateIntegration' }>['data'];
const update = (over: Pick<Update, 'changes'> & Partial<Update>): GitIntegrationCommand => ({
  type: 'UpdateIntegration',
  data: { integrationId: 'g1', at: t2, by: 'u2', ...over },
});
const updated = (changes: Update['changes'] & { syncConfig?: typeof syncConfig }): GitIntegrationEvent => ({
  type: 'GitIntegrationUpdated',
  data: { integrationId: 'g1', changes, at: t2, by: 'u2' },
});
const del: GitIntegrationCommand = { type: 'DeleteIntegration', data: { integrationId: 'g1', at: t2, by: 'u2' } };
const deleted: GitIntegrationEvent = { type: 'GitIntegrationDeleted', data: { integrationId: 'g1', at: t2, by: 'u2' } };
const enterprise = 'https://git.acme.example';

describe('GitIntegration', () => {
  describe('when absent', () => {
    it('creates the integration', () => given([]).when(create).then([created]));
    it('rejects an update with NOT_FOUND', () =>
      given([])
        .when(update({ changes: { repository: 'acme/web' } }))
        .thenThrows('NOT_FOUND'));
    it('rejects a delete with NOT_FOUND', () => given([]).when(del).thenThrows('NOT_FOUND'));
  });

  describe('when created', () => {
    it('creates again without a new event (a retried request)', () => given([created]).when(create).then([]));
    it('records the settings it is given', () =>
      given([created])
        .when(update({ changes: { repository: 'acme/web' } }))
        .then([updated({ repository: 'acme/web' })]));
    it('records settings given unchanged too', () =>
      given([created])
        .when(update({ changes: { repository: 'acme/site' } }))
        .then([updated({ repository: 'acme/site' })]));
    it('merges the sync settings into those the stream holds', () =>
      given([created, updated({ syncConfig: { ...syncConfig, branch: 'release' } })])
        .when(update({ changes: {}, syncConfig: { preview: false } }))
        .then([updated({ syncConfig: { ...syncConfig, branch: 'release', preview: false } })]));
    it('updates without a new event when nothing is given', () =>
      given([created])
        .when(update({ changes: {} }))
        .then([]));
    it('deletes the integration', () => given([created]).when(del).then([deleted]));
  });

  describe('when its host changes', () => {
    it('drops the stored token and its renewal', () =>
      given([created])
        .when(update({ changes: { baseUrl: enterprise } }))
        .then([updated({ baseUrl: enterprise, token: null, refreshToken: null, tokenExpiresAt: null })]));
    it('keeps a token given with the change', () =>
      given([created])
        .when(update({ changes: { baseUrl: enterprise, token: 'pii:bmV3' } }))
        .then([updated({ baseUrl: enterprise, token: 'pii:bmV3' })]));
    it('drops the old host’s renewal when only a new token comes with the change', () =>
      given([created, updated({ refreshToken: 'pii:cmVm', tokenExpiresAt: t2 })])
        .when(update({ changes: { baseUrl: enterprise, token: 'pii:bmV3' } }))
        .then([updated({ baseUrl: enterprise, token: 'pii:bmV3', refreshToken: null, tokenExpiresAt: null })]));
    it('keeps a renewal given with the new token', () =>
      given([created, updated({ refreshToken: 'pii:cmVm', tokenExpiresAt: t2 })])
        .when(
          update({
            changes: { baseUrl: enterprise, token: 'pii:bmV3', refreshToken: 'pii:bmV3cg==', tokenExpiresAt: t2 },
          }),
        )
        .then([updated({ baseUrl: enterprise, token: 'pii:bmV3', refreshToken: 'pii:bmV3cg==', tokenExpiresAt: t2 })]));
    it('drops the stored app and its key', () =>
      given([createdAsApp])
        .when(update({ changes: { baseUrl: enterprise } }))
        .then([updated({ baseUrl: enterprise, app: null, appKey: null })]));
    it('keeps an app key given with the change', () =>
      given([createdAsApp])
        .when(update({ changes: { baseUrl: enterprise, appKey: 'pii:bmV3a2V5' } }))
        .then([updated({ baseUrl: enterprise, appKey: 'pii:bmV3a2V5' })]));
    it('drops a token stored after the caller read the integration', () =>
      given([createdAsApp, updated({ token: 'pii:bGF0ZQ' })])
        .when(update({ changes: { baseUrl: enterprise, appKey: 'pii:bmV3a2V5' } }))
        .then([
          updated({
            baseUrl: enterprise,
            appKey: 'pii:bmV3a2V5',
            token: null,
            refreshToken: null,
            tokenExpiresAt: null,
          }),
        ]));
    it('drops nothing when the host stays the same', () =>
      given([created])
        .when(update({ changes: { baseUrl: null } }))
        .then([updated({ baseUrl: null })]));
  });
});

describe('GitIntegration', () => {
  describe('when deleted', () => {
    it('rejects an update with NOT_FOUND', () =>
      given([created, deleted])
        .when(update({ changes: { repository: 'acme/web' } }))
        .thenThrows('NOT_FOUND'));
    it('rejects a second delete with NOT_FOUND', () => given([created, deleted]).when(del).thenThrows('NOT_FOUND'));
  });

  describe('evolve', () => {
    it('keeps who connected it and stamps the last change', () =>
      expect(fold(gitIntegrationDecider, [created, updated({ repository: 'acme/web' })])).toEqual({
        ...definition,
        repository: 'acme/web',
        createdBy: 'u1',
        createdAt: t1,
        updatedAt: t2,
      }));
    it('forgets a deleted integration', () => expect(fold(gitIntegrationDecider, [created, deleted])).toBeNull());
  });

  const commandArb: fc.Arbitrary<GitIntegrationCommand> = fc.oneof(
    fc.constantFrom<GitIntegrationCommand>(create, { type: 'CreateIntegration', data: createdAsApp.data }, del),
    fc
      .record(
        {
          baseUrl: fc.constantFrom(null, enterprise, 'https://other.example'),
          token: fc.constantFrom(null, 'pii:bmV3'),
          appKey: fc.constant('pii:bmV3a2V5'),
          repository: fc.constant('acme/web'),
        },
        { requiredKeys: [] },
      )
      .chain((changes) =>
        fc
          .option(fc.record({ preview: fc.boolean() }), { nil: undefined })
          .map((sync) => update({ changes, ...(sync ? { syncConfig: sync } : {}) })),
      ),
  );

  it('folding the accepted events gives the state reached step by step', () =>
    fc.assert(
      fc.property(fc.array(commandArb, { maxLength: 20 }), (commands) => {
        const { state, events } = runCommands(gitIntegrationDecider, commands);
        expect(fold(gitIntegrationDecider, events)).toEqual(state);
      }),
    ));

  it('keeps no stored credential once the host changes, only those given with the change', () =>
    fc.assert(
      fc.property(fc.array(commandArb, { maxLength: 20 }), (commands) => {
        for (let i = 1; i <= commands.length; i++) {
          const before = runCommands(gitIntegrationDecider, commands.slice(0, i - 1)).state;
          const after = runCommands(gitIntegrationDecider, commands.slice(0, i)).state;
          const c = commands[i - 1]!;
          if (c.type !== 'UpdateIntegration' || !before || !after || after.baseUrl === before.baseUrl) continue;
          expect(after.token).toBe(c.data.changes.token ?? null);
          expect(after.appKey ?? null).toBe(c.data.changes.appKey ?? null);
        }
      }),
    ));
});

describe('GitDelivery', () => {
  const givenDelivery = deciderSpec(gitDeliveryDecider);
  const data = {
    integrationId: 'g1',
    provider: 'github' as const,
    key: 'k'.repeat(32),
    deliveryId: 'd1',
    event: 'pull_request',
    payload: 'pii:cGF5bG9hZA',
    at: t1,
  };
  const received: GitDeliveryReceived = { type: 'GitDeliveryReceived', data };
  const record = { type: 'RecordDelivery' as const, data };

  it('records the first arrival', () => givenDelivery([]).when(record).then([received]));
  it('records a redelivery without a new event', () => givenDelivery([received]).when(record).then([]));
});
