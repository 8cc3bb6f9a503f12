import { eventStoreContract } from '../../../test/contracts/event-store.contract.ts';
import { openTestDatabase } from '../../../test/setup/db.ts';
import { PgEventStore } from './pg-event-store.ts';

eventStoreContract(process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite', async ({ upcasters }) => {
  const database = await openTestDatabase();
  return { store: new PgEventStore(database.db, [], { upcasters }), close: () => database.drop() };
});
