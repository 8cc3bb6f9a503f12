import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fold } from '../../kernel/es/decider.ts';
import { deciderSpec, runCommands } from '../../../test/support/decider-spec.ts';
import type { SuppressionEvent } from '../../contracts/email/email.events.ts';
import { suppressionDecider, type SuppressionCommand } from './suppression.decider.ts';

const now = '2026-05-01T10:00:00.000Z';
const suppress = (source: 'admin' | 'unsubscribe', reason: string | null = null): SuppressionCommand => ({
  type: 'SuppressAddress',
  data: { emailHash: 'h', email: 'pii:x', source, reason, now, by: 'u1' },
});
const unsuppress: SuppressionCommand = { type: 'UnsuppressAddress', data: { emailHash: 'h', now, by: 'u1' } };
const suppressed: SuppressionEvent = {
  type: 'email_suppressed',
  data: { emailHash: 'h', email: 'pii:x', reason: 'bounced', at: now, by: 'u1' },
};

describe('An address suppression', () => {
  const given = deciderSpec(suppressionDecider);
  it('records email_suppressed when an admin suppresses it', () =>
    given([]).when(suppress('admin', 'bounced')).then([suppressed]));
  it('records email_unsubscribed when its owner unsubscribes', () =>
    given([])
      .when(suppress('unsubscribe'))
      .then([
        { type: 'email_unsubscribed', data: { emailHash: 'h', email: 'pii:x', reason: null, at: now, by: 'u1' } },
      ]));
  it('records nothing when it is suppressed already, whoever asks', () => {
    given([suppressed]).when(suppress('admin')).then([]);
    given([suppressed]).when(suppress('unsubscribe')).then([]);
  });
  it('records email_unsuppressed when an admin removes it', () =>
    given([suppressed])
      .when(unsuppress)
      .then([{ type: 'email_unsuppressed', data: { emailHash: 'h', at: now, by: 'u1' } }]));
  it('refuses to remove an address that is not suppressed with NOT_FOUND', () =>
    given([]).when(unsuppress).thenThrows('NOT_FOUND'));

  const commands = fc.array(
    fc.oneof(
      fc.constant(unsuppress),
      fc.constantFrom<'admin' | 'unsubscribe'>('admin', 'unsubscribe').map((s) => suppress(s)),
    ),
    { maxLength: 20 },
  );
  it('evolve accepts every event decide emits, and the state says whether the last word was a suppression', () =>
    fc.assert(
      fc.property(commands, (cmds) => {
        const { state, events } = runCommands(suppressionDecider, cmds);
        expect(fold(suppressionDecider, events)).toEqual(state);
        expect(state.suppressed).toBe(events.at(-1) !== undefined && events.at(-1)!.type !== 'email_unsuppressed');
        // Never two suppressions in a row, never two removals in a row.
        for (let i = 1; i < events.length; i++)
          expect(events[i]!.type === 'email_unsuppressed').not.toBe(events[i - 1]!.type === 'email_unsuppressed');
      }),
    ));
});
