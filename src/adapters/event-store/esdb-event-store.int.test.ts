import { randomUUID } from 'node:crypto';
import { describe } from 'vitest';
import { eventStoreContract } from '../../../test/contracts/event-store.contract.ts';
import { EsdbEventStore } from './esdb-event-store.ts';

const url = process.env.EVENTSTORE_URL;
if (!url) console.info('EventStoreDB contract skipped: EVENTSTORE_URL is not set');

describe.skipIf(!url)('EventStoreDB adapter (EVENTSTORE_URL)', () => {
  eventStoreContract(
    'EventStoreDB',
    async ({ upcasters }) => {
      // A prefix of its own: the server may hold other runs' and other test files' events.
      const store = new EsdbEventStore(url!, { upcasters, prefix: `contract-${randomUUID()}-` });
      return { store, close: () => store.close() };
    },
    { multiStreamAtomic: false },
  );
});
