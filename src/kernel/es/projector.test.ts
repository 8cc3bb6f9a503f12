import { describe, expect, it } from 'vitest';
import type { DomainEvent } from './event.ts';
import { defineProjector, handlesEvent } from './projector.ts';

type Opened = DomainEvent<'AccountOpened', { accountId: string; owner: string }>;
type Closed = DomainEvent<'AccountClosed', { accountId: string; reason: string }>;
type AccountEvent = Opened | Closed;

const noTables = async () => undefined;
const base = { version: 1, mode: 'inline', tables: [], createTables: noTables } as const;

describe('defineProjector', () => {
  it('narrows each event type to its own data inside apply', () => {
    const p = defineProjector<AccountEvent>({
      ...base,
      name: 'accounts',
      handles: ['AccountOpened', 'AccountClosed'],
      apply: async (_trx, e) => {
        switch (e.type) {
          case 'AccountOpened':
            void e.data.owner;
            // @ts-expect-error an opening has no reason
            void e.data.reason;
            return;
          case 'AccountClosed':
            void e.data.reason;
            // @ts-expect-error a closing has no owner
            void e.data.owner;
            return;
        }
      },
    });
    expect(handlesEvent(p, 'AccountOpened')).toBe(true);
    expect(handlesEvent(p, 'AccountReopened')).toBe(false);
  });

  it('refuses an event type the union does not have', () => {
    defineProjector<AccountEvent>({
      ...base,
      name: 'accounts',
      // @ts-expect-error a misspelt type
      handles: ['AccountOpened', 'AcountClosed'],
      apply: async () => undefined,
    });
  });

  it('refuses every event for a projector of some events, and takes no type without its union', () => {
    defineProjector<AccountEvent>({
      ...base,
      name: 'accounts',
      // @ts-expect-error '*' is for projectors of every event
      handles: '*',
      apply: async () => undefined,
    });
    defineProjector({
      ...base,
      name: 'accounts',
      // @ts-expect-error the event union was not given
      handles: ['AccountOpened'],
      apply: async () => undefined,
    });
  });

  it('gives a projector of every event the stored event with its metadata', () => {
    const p = defineProjector<DomainEvent>({
      ...base,
      name: 'activity',
      handles: '*',
      apply: async (_trx, e) => {
        void e.siteId;
        // @ts-expect-error an event of any type has data of no known shape
        void e.data.accountId;
      },
    });
    expect(handlesEvent(p, 'Anything')).toBe(true);
  });
});
