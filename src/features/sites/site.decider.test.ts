import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fold } from '../../kernel/es/decider.ts';
import { deciderSpec, runCommands } from '../../../test/support/decider-spec.ts';
import { siteDecider, type SiteCommand } from './site.decider.ts';
import type { SiteEvent } from '../../contracts/sites/site.events.ts';

const given = deciderSpec(siteDecider);
const now = '2026-03-01T10:00:00.000Z';
const created: SiteEvent = {
  type: 'SiteCreated',
  data: { siteId: 'acme', name: 'Acme', settings: {}, createdBy: 'u1', at: now },
};

describe('Site', () => {
  describe('when absent', () => {
    it('creates the site with empty settings', () =>
      given([])
        .when({ type: 'CreateSite', data: { siteId: 'acme', name: 'Acme', createdBy: 'u1', now } })
        .then([created]));
    it('rejects an update with SITE_NOT_FOUND', () =>
      given([])
        .when({ type: 'UpdateSite', data: { siteId: 'acme', name: 'X', now } })
        .thenThrows('SITE_NOT_FOUND'));
  });

  describe('when created', () => {
    it('rejects a second create with CONFLICT', () =>
      given([created])
        .when({ type: 'CreateSite', data: { siteId: 'acme', name: 'Acme', createdBy: 'u2', now } })
        .thenThrows('CONFLICT'));
    it('records only what changed', () =>
      given([created])
        .when({
          type: 'UpdateSite',
          data: { siteId: 'acme', name: 'Acme', settings: { default_save_action: 'stay' }, now },
        })
        .then([
          {
            type: 'SiteUpdated',
            data: { siteId: 'acme', name: undefined, settings: { default_save_action: 'stay' }, at: now },
          },
        ]));
    it('emits nothing for an update that changes nothing', () =>
      given([created])
        .when({ type: 'UpdateSite', data: { siteId: 'acme', name: 'Acme', now } })
        .then([]));
  });

  const commandArb: fc.Arbitrary<SiteCommand> = fc.oneof(
    fc.record({
      type: fc.constant('CreateSite' as const),
      data: fc.record({
        siteId: fc.constant('s1'),
        name: fc.string({ minLength: 1, maxLength: 5 }),
        createdBy: fc.constant('u'),
        now: fc.constant(now),
      }),
    }),
    fc.record({
      type: fc.constant('UpdateSite' as const),
      data: fc.record(
        {
          siteId: fc.constant('s1'),
          name: fc.string({ minLength: 1, maxLength: 5 }),
          settings: fc.record(
            { default_save_action: fc.constantFrom('stay', 'return', 'create_new', null) },
            { requiredKeys: [] },
          ),
          now: fc.constant(now),
        },
        { requiredKeys: ['siteId', 'now'] },
      ),
    }),
  );

  it('folding the accepted events gives the state reached step by step', () =>
    fc.assert(
      fc.property(fc.array(commandArb, { maxLength: 30 }), (commands) => {
        const { state, events } = runCommands(siteDecider, commands);
        expect(fold(siteDecider, events)).toEqual(state);
      }),
    ));
});
