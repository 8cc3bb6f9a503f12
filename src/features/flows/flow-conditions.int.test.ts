import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../kernel/clock.ts';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { runDueFlows } from './runs/flow-run.worker.ts';

const clock = new ManualClock(new Date('2026-04-01T08:00:00Z'));
let t: TestApp;
let admin: string;

beforeAll(async () => {
  t = await createTestApp({ clock });
  admin = await t.setup();
});
afterAll(() => t.close());

const call = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
  t.call({ method, url, as: admin, site: 'main', ...(payload === undefined ? {} : { payload: payload as object }) });
const save = (filter: unknown) =>
  call('POST', '/api/v1/flows', {
    name: 'condition',
    trigger: 'manual',
    status: 'active',
    graph: { nodes: [{ id: 'check', operation: 'condition', options: { filter } }], edges: [] },
  });

/** The edge the condition left by, for each input: the flow is saved, run through the API and read back. */
async function edges(filter: unknown, inputs: unknown[]): Promise<string[]> {
  const res = await save(filter);
  expect(res.statusCode, res.body).toBe(201);
  const flowId = res.json().data.id as string;
  const runIds: string[] = [];
  for (const input of inputs) {
    const run = await call('POST', `/api/v1/flows/${flowId}/run`, input);
    expect(run.statusCode, run.body).toBe(202);
    runIds.push(run.json().data.id as string);
  }
  await runDueFlows(t.deps);
  const out: string[] = [];
  for (const runId of runIds) {
    const run = (await call('GET', `/api/v1/flows/${flowId}/runs/${encodeURIComponent(runId)}`)).json().data;
    out.push(run.steps[0].edge as string);
  }
  return out;
}

const published = { payload: { status: 'published', views: 12, tags: ['a', 'b'], meta: { lang: 'vi' } } };
const draft = { payload: { status: 'draft', views: 3, tags: ['c'], meta: { lang: 'en' }, missing: 'here' } };

describe('condition operation', () => {
  it('takes the nested form of the item filter language and answers as the dotted form, operator by operator', async () => {
    const cases: [string, unknown, unknown][] = [
      [
        '_eq',
        { $trigger: { payload: { status: { _eq: 'published' } } } },
        { '$trigger.payload.status': { _eq: 'published' } },
      ],
      [
        '_neq',
        { $trigger: { payload: { status: { _neq: 'draft' } } } },
        { '$trigger.payload.status': { _neq: 'draft' } },
      ],
      ['_gt', { $trigger: { payload: { views: { _gt: 10 } } } }, { '$trigger.payload.views': { _gt: 10 } }],
      [
        '_in',
        { $trigger: { payload: { status: { _in: ['published', 'x'] } } } },
        { '$trigger.payload.status': { _in: ['published', 'x'] } },
      ],
      [
        '_between',
        { $trigger: { payload: { views: { _between: [10, 20] } } } },
        { '$trigger.payload.views': { _between: [10, 20] } },
      ],
      [
        '_starts_with',
        { $trigger: { payload: { status: { _starts_with: 'pub' } } } },
        { '$trigger.payload.status': { _starts_with: 'pub' } },
      ],
      [
        '_json_contains',
        { $trigger: { payload: { tags: { _json_contains: ['b'] } } } },
        { '$trigger.payload.tags': { _json_contains: ['b'] } },
      ],
      [
        '_null',
        { $trigger: { payload: { missing: { _null: true } }, other: { _null: true } } },
        { '$trigger.payload.missing': { _null: true }, '$trigger.other': { _null: true } },
      ],
      // A nested key may itself be dotted, and _and/_or stand inside a nested path, relative to it.
      [
        'mixed',
        { $trigger: { 'payload.meta': { lang: { _eq: 'vi' } } } },
        { '$trigger.payload.meta.lang': { _eq: 'vi' } },
      ],
      [
        '_or',
        { $trigger: { payload: { _or: [{ status: { _eq: 'published' } }, { views: { _lt: 0 } }] } } },
        { _or: [{ '$trigger.payload.status': { _eq: 'published' } }, { '$trigger.payload.views': { _lt: 0 } }] },
      ],
      [
        '_and',
        {
          _and: [
            { $trigger: { payload: { views: { _gte: 12 } } } },
            { $last: { payload: { status: { _nnull: true } } } },
          ],
        },
        { _and: [{ '$trigger.payload.views': { _gte: 12 } }, { '$last.payload.status': { _nnull: true } }] },
      ],
    ];
    for (const [op, nested, dotted] of cases) {
      const a = await edges(nested, [published, draft]);
      const b = await edges(dotted, [published, draft]);
      expect(a, op).toEqual(b);
      expect(a, op).toEqual(['resolve', 'reject']);
    }
  });

  it('refuses prototype keys in a condition path at save, with 400 and the path', async () => {
    const hostile: [unknown, string[]][] = [
      [{ '$trigger.__proto__.x': { _eq: 1 } }, ['$trigger.__proto__.x']],
      [{ '$trigger.payload.constructor': { _null: true } }, ['$trigger.payload.constructor']],
      [{ $trigger: { 'payload.prototype': { _eq: 1 } } }, ['$trigger', 'payload.prototype']],
      [{ _or: [{ $last: { 'a.__proto__': { _eq: 1 } } }] }, ['_or', '0', '$last', 'a.__proto__']],
    ];
    for (const [filter, path] of hostile) {
      const res = await save(filter);
      expect(res.statusCode, JSON.stringify(filter)).toBe(400);
      const error = res.json().errors[0];
      expect(error.code).toBe('VALIDATION_FAILED');
      expect(error.path).toEqual(['graph', 'nodes', '0', 'options', 'filter', ...path]);
    }
  });

  it('refuses prototype keys in a template path too, at save, with the path', async () => {
    for (const ref of ['$trigger.__proto__', '$last.a.constructor.name', 'prototype']) {
      const res = await call('POST', '/api/v1/flows', {
        name: 'template',
        trigger: 'manual',
        status: 'active',
        graph: { nodes: [{ id: 'say', operation: 'log', options: { message: `{{ ${ref} }}` } }], edges: [] },
      });
      expect(res.statusCode, ref).toBe(400);
      expect(res.json().errors[0]).toMatchObject({
        code: 'VALIDATION_FAILED',
        path: ['graph', 'nodes', '0', 'options', 'message'],
      });
    }
  });

  it('refuses a nested filter that ends without an operator, or an operator without a path, with the path', async () => {
    const bad: [unknown, string[]][] = [
      [{ $trigger: { payload: 'published' } }, ['$trigger', 'payload']],
      [{ $trigger: { payload: {} } }, ['$trigger', 'payload']],
      [{ _eq: 1 }, ['_eq']],
      [{ $trigger: { payload: { status: { _like: 'x' } } } }, ['$trigger', 'payload', 'status', '_like']],
      [
        { $trigger: { a: { b: { c: { d: { e: { f: { g: { h: { i: { _eq: 1 } } } } } } } } } } },
        ['$trigger', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'],
      ],
    ];
    for (const [filter, path] of bad) {
      const res = await save(filter);
      expect(res.statusCode, JSON.stringify(filter)).toBe(400);
      expect(res.json().errors[0].path).toEqual(['graph', 'nodes', '0', 'options', 'filter', ...path]);
    }
  });
});
