import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fold } from '../../kernel/es/decider.ts';
import { deciderSpec, runCommands } from '../../../test/support/decider-spec.ts';
import { setupDecider, type SetupCommand, type StartSetup } from './setup.decider.ts';
import type { SetupCompleted, SetupStarted } from '../../contracts/setup/setup.events.ts';

const given = deciderSpec(setupDecider);
const now = '2026-03-01T10:00:00.000Z';
const later = '2026-03-01T10:00:05.000Z';
const setup = {
  siteId: 'main',
  siteName: 'Main site',
  adminUserId: 'u1',
  email: 'pii:c2VhbGVk',
  emailHash: 'ab'.repeat(32),
  passwordHash: 'pii:aGFzaA',
  adminPath: '/admin',
};
const start: StartSetup = { type: 'StartSetup', data: { ...setup, now } };
const complete: SetupCommand = { type: 'CompleteSetup', data: { now: later } };
const started: SetupStarted = { type: 'SetupStarted', data: { ...setup, at: now } };
const completed: SetupCompleted = { type: 'SetupCompleted', data: { at: later } };

describe('Setup', () => {
  describe('when new', () => {
    it('starts setup with everything needed to finish it', () => given([]).when(start).then([started]));
    it('rejects a complete with CONFLICT', () => given([]).when(complete).thenThrows('CONFLICT'));
  });

  describe('when started', () => {
    it('rejects a second start with CONFLICT', () => given([started]).when(start).thenThrows('CONFLICT'));
    it('completes setup', () => given([started]).when(complete).then([completed]));
  });

  describe('when completed', () => {
    it('rejects a start with NOT_FOUND, as an unknown route', () =>
      given([started, completed]).when(start).thenThrows('NOT_FOUND'));
    it('completes again without a new event', () => given([started, completed]).when(complete).then([]));
  });

  describe('evolve', () => {
    it('keeps what the start recorded through completion', () =>
      expect(fold(setupDecider, [started, completed])).toEqual({ phase: 'completed', started: started.data }));
    it('ignores a completion without a start', () => expect(fold(setupDecider, [completed])).toEqual({ phase: 'new' }));
  });

  const commandArb: fc.Arbitrary<SetupCommand> = fc.constantFrom(start, complete);

  it('folding the accepted events gives the state reached step by step', () =>
    fc.assert(
      fc.property(fc.array(commandArb, { maxLength: 10 }), (commands) => {
        const { state, events } = runCommands(setupDecider, commands);
        expect(fold(setupDecider, events)).toEqual(state);
      }),
    ));

  it('starts at most once and completes at most once, after the start', () =>
    fc.assert(
      fc.property(fc.array(commandArb, { maxLength: 10 }), (commands) => {
        const types = runCommands(setupDecider, commands).events.map((e) => e.type);
        expect(types.filter((t) => t === 'SetupStarted').length).toBeLessThanOrEqual(1);
        expect(types.filter((t) => t === 'SetupCompleted').length).toBeLessThanOrEqual(1);
        if (types.includes('SetupCompleted')) expect(types[0]).toBe('SetupStarted');
      }),
    ));
});
