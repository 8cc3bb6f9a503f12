import { describe } from 'vitest';
import { searchIndexContract } from '../../../test/contracts/search-index.contract.ts';
import { createTestApp } from '../../../test/setup/app.ts';
import { TYPESENSE_INDEXER, typesenseOf } from './typesense.ts';

const url = process.env.TEST_TYPESENSE_URL;
const apiKey = process.env.TEST_TYPESENSE_API_KEY ?? '';
if (!url) console.info('Typesense contract skipped: TEST_TYPESENSE_URL (and TEST_TYPESENSE_API_KEY) not set');

// The same contract as PostgreSQL's, against a Typesense server, with the reactor keeping it in step as in production.
describe.skipIf(!url)('Typesense engine (TEST_TYPESENSE_URL)', () => {
  searchIndexContract('Typesense', async () => {
    const prefix = `t${Date.now().toString(36)}_`;
    const t = await createTestApp({
      env: { TYPESENSE_URL: url!, TYPESENSE_API_KEY: apiKey, TYPESENSE_PREFIX: prefix },
    });
    const admin = await t.setup();
    const engine = typesenseOf(t.deps)!;
    const call = async (method: 'POST' | 'DELETE', path: string, site: string, payload?: object) => {
      const res = await t.call({ method, url: path, payload, as: admin, site });
      if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.body}`);
      await t.deps.drainReactors(TYPESENSE_INDEXER);
    };
    await call('POST', '/api/v1/sites', 'main', { id: 'other', name: 'Other' });
    return {
      index: engine.index,
      sites: ['main', 'other'],
      define: async (site, collection, fields) => {
        await call('POST', '/api/v1/collections', site, { name: collection });
        for (const f of fields) await call('POST', `/api/v1/fields/${collection}`, site, f);
      },
      put: (site, collection, items) => call('POST', `/api/v1/items/${collection}`, site, items),
      remove: (site, collection, id) => call('DELETE', `/api/v1/items/${collection}/${id}`, site),
      schema: (site) => t.deps.schemas.read(site),
      close: async () => {
        const { aliases, collections } = await engine.writer.listed();
        for (const a of aliases.keys()) await engine.writer.dropAlias(a);
        for (const c of collections) await engine.writer.dropCollection(c);
        await t.close();
      },
    };
  });
});
