import type { Kysely } from 'kysely';
import type { DB } from '../../src/kernel/db/database.ts';
import type { EventStore } from '../../src/kernel/es/event-store.ts';
import { readAsSite } from '../../src/kernel/tenancy/site.ts';
import { schemaStream } from '../../src/contracts/schema/schema.events.ts';
import { loadSiteSchema, type SiteSchema } from './site-schema.ts';

/** A site's schema for every slice, read once per schema version. */
export interface SchemaReader {
  read(siteId: string): Promise<SiteSchema>;
}

/**
 * One cheap read of the schema stream's version decides whether the cached copy is current (the read model is
 * updated in the append's transaction, so a version never has an older schema); only a changed schema is read
 * again. Correct across processes, as it asks the store every time. Concurrent misses of one version share a read.
 */
export function schemaReader(db: Kysely<DB>, store: EventStore): SchemaReader {
  const cache = new Map<string, { version: number; schema: Promise<SiteSchema> }>();
  return {
    async read(siteId) {
      const version = (await store.streamVersion(schemaStream(siteId))) ?? 0;
      const hit = cache.get(siteId);
      if (hit && hit.version === version) return hit.schema;
      const schema = readAsSite(db, siteId, (trx) => loadSiteSchema(trx, siteId));
      cache.set(siteId, { version, schema });
      schema.catch(() => cache.get(siteId)?.schema === schema && cache.delete(siteId));
      return schema;
    },
  };
}
