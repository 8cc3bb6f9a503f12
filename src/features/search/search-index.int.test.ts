import { searchIndexContract } from '../../../test/contracts/search-index.contract.ts';
import { createTestApp } from '../../../test/setup/app.ts';
import { pgSearchIndex } from '../../../projections/search/index.ts';

searchIndexContract('PostgreSQL', async () => {
  const t = await createTestApp();
  const admin = await t.setup();
  const call = async (method: 'POST' | 'DELETE', url: string, site: string, payload?: object) => {
    const res = await t.call({ method, url, payload, as: admin, site });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.body}`);
  };
  await call('POST', '/api/v1/sites', 'main', { id: 'other', name: 'Other' });
  return {
    index: pgSearchIndex(t.deps.db),
    sites: ['main', 'other'],
    define: async (site, collection, fields) => {
      await call('POST', '/api/v1/collections', site, { name: collection });
      for (const f of fields) await call('POST', `/api/v1/fields/${collection}`, site, f);
    },
    put: (site, collection, items) => call('POST', `/api/v1/items/${collection}`, site, items),
    remove: (site, collection, id) => call('DELETE', `/api/v1/items/${collection}/${id}`, site),
    schema: (site) => t.deps.schemas.read(site),
    close: () => t.close(),
  };
});
