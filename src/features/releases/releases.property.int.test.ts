import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';

/**
 * Random releases (live, deleted and gate-blocked items; either mode) published through the API: the outcomes and
 * the status must follow the rules, and the items must show exactly the published outcomes.
 */
let t: TestApp;
let admin: string;
const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) =>
  t.call({ method, url, payload: payload as object, as: admin, site: 'main' });
type Kind = 'live' | 'deleted' | 'gated';

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await call('POST', '/api/v1/collections', { name: 'docs' });
  await call('POST', '/api/v1/collections', {
    name: 'locked',
    workflow: { field: 'status', transitions: { draft: ['review'] } },
  });
});
afterAll(() => t.close());

let seq = 0;
describe('publishing random releases', () => {
  it('follows the outcome and status rules of both modes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom<Kind>('live', 'deleted', 'gated'), { minLength: 1, maxLength: 6 }),
        fc.constantFrom('all_or_nothing', 'best_effort'),
        async (kinds, atomicityMode) => {
          const items = [];
          for (const kind of kinds) {
            const id = `i${++seq}`;
            const collection = kind === 'gated' ? 'locked' : 'docs';
            expect((await call('POST', `/api/v1/items/${collection}`, { id, status: 'draft' })).statusCode).toBe(201);
            if (kind === 'deleted') await call('DELETE', `/api/v1/items/${collection}/${id}`);
            items.push({ kind, collection, itemId: id, targetStatus: 'published' });
          }
          const created = await call('POST', '/api/v1/releases', {
            name: 'random',
            atomicityMode,
            addItems: items.map(({ kind: _k, ...i }) => i),
          });
          expect(created.statusCode, created.body).toBe(201);
          const res = await call('POST', `/api/v1/releases/${created.json().data.id}/publish`);
          expect(res.statusCode, res.body).toBe(200);
          const { status, outcomes } = res.json().data as {
            status: string;
            outcomes: { itemId: string; outcome: string; reason?: string }[];
          };
          const reason = (k: Kind) =>
            k === 'deleted' ? 'ITEM_DELETED' : k === 'gated' ? 'EDITORIAL_GATE_REQUIRED' : undefined;
          const blocked = items.some((i) => i.kind !== 'live');
          const expected = items.map((i) => {
            if (i.kind !== 'live') return { outcome: 'failed', reason: reason(i.kind) };
            return atomicityMode === 'all_or_nothing' && blocked ? { outcome: 'skipped' } : { outcome: 'published' };
          });
          expect(outcomes.map(({ outcome, reason: r }) => (r ? { outcome, reason: r } : { outcome }))).toEqual(
            expected,
          );
          const n = expected.filter((e) => e.outcome === 'published').length;
          expect(status).toBe(n === items.length ? 'published' : n === 0 ? 'failed' : 'partially_failed');
          for (const [k, i] of items.entries()) {
            if (i.kind === 'deleted') continue;
            const now = (await call('GET', `/api/v1/items/${i.collection}/${i.itemId}`)).json().data.status;
            expect(now).toBe(expected[k]!.outcome === 'published' ? 'published' : 'draft');
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});
