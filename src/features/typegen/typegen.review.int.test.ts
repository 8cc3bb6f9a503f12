import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { generate } from './generate.ts';
import type { TypegenManifest } from './typegen.manifest.ts';
import { compile } from './typegen-usage.fixture.ts';

/**
 * Review probes of type generation: hostile enum choices through the API, a hostile manifest handed straight to
 * the generator (what `svc typegen` does with whatever a server answers), and the manifest cache across sites and
 * filters.
 */
let t: TestApp;
let admin: string;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await t.call({ method: 'POST', url: '/api/v1/sites', as: admin, payload: { id: 'tg-b', name: 'tg-b' } });
});
afterAll(() => t.close());

const ok = async (method: 'GET' | 'POST', url: string, payload?: unknown, site = 'main') => {
  const res = await t.call({
    method,
    url,
    as: admin,
    site,
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
  return res.json().data;
};

const HOSTILE = [
  '*/ export const pwned = 1; /*',
  '"; export const x = 1; "',
  "'; export const y = 1; '",
  '`${globalThis.process.exit(1)}`',
  'line\nbreak',
  'sep\u2028arator',
  '</script>',
  '\\',
];

/** The JavaScript the generated files compile to: type-only files must emit no statement. */
const emitted = (files: Map<string, string>) =>
  [...files.values()].map((src) =>
    ts
      .transpileModule(src, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } })
      .outputText.replace(/\/\/.*$/gm, '')
      .replace(/export \{\};?/g, '')
      .replace(/import type[^;]*;/g, '')
      .trim(),
  );

describe('typegen review: hostile names and choices', () => {
  it('writes hostile enum choices as literals that compile and run nothing', async () => {
    await ok('POST', '/api/v1/collections', { name: 'hostile' });
    await ok('POST', '/api/v1/fields/hostile', { field: 'mood', type: 'enum', choices: HOSTILE });
    const m = (await ok('GET', '/api/v1/typegen/schema')) as TypegenManifest;
    for (const format of ['single', 'per-collection'] as const) {
      const files = generate(m, { format, branded: true });
      const from = format === 'single' ? './gen/schema.js' : './gen/index.js';
      const usage = `import type { Hostile } from '${from}';\nexport const m: NonNullable<Hostile['mood']>[] = ${JSON.stringify(HOSTILE)};\n`;
      const result = await compile(files, { 'use.ts': usage });
      for (const name of files.keys()) expect(result.diagnostics(`gen/${name}`), name).toEqual([]);
      expect(result.diagnostics('use.ts')).toEqual([]);
      expect(emitted(files).filter(Boolean)).toEqual([]);
    }
  }, 60_000);

  it('keeps a hostile manifest (names a server should never send) to types: it compiles and runs nothing', async () => {
    const evil = '*/ export const pwned = 1; /*\n';
    const m = {
      version: 2,
      site: `s\n${evil}`,
      collections: [
        {
          name: `c${evil}`,
          primaryKey: 'id',
          primaryKeyField: 'id',
          primaryKeyType: `nanoid${evil}`,
          relations: [],
          fields: [
            {
              name: 'id',
              type: 'string',
              required: true,
              nullable: false,
              readonly: true,
              generated: true,
              system: true,
              encrypted: false,
              primaryKey: true,
              branded: 'Evil; export const z = 1; //Id',
            },
            {
              name: `f${evil}`,
              type: 'string',
              required: false,
              nullable: true,
              readonly: false,
              generated: false,
              system: false,
              encrypted: false,
              primaryKey: false,
            },
            {
              name: 'toString',
              type: 'weird; export const w = 1;',
              required: false,
              nullable: true,
              readonly: false,
              generated: false,
              system: false,
              encrypted: false,
              primaryKey: false,
            },
          ],
        },
      ],
    } as unknown as TypegenManifest;
    for (const format of ['single', 'per-collection'] as const) {
      const files = generate(m, { format, branded: true });
      for (const name of files.keys()) expect(name).toMatch(/^[a-z0-9_]+\.ts$/);
      const result = await compile(files, {});
      for (const name of files.keys()) expect(result.diagnostics(`gen/${name}`), name).toEqual([]);
      expect(emitted(files).filter(Boolean)).toEqual([]);
    }
  }, 60_000);
});

describe('typegen review: the manifest cache', () => {
  it('never answers one site or one filter with another', async () => {
    // Two sites at the same schema version, with different collections.
    await ok('POST', '/api/v1/collections', { name: 'only_b' }, 'tg-b');
    await ok('POST', '/api/v1/collections', { name: 'alpha' }, 'tg-b');
    const names = async (site: string, q = '') =>
      ((await ok('GET', `/api/v1/typegen/schema${q}`, undefined, site)) as TypegenManifest).collections.map(
        (c) => c.name,
      );
    const main1 = await names('main');
    const b1 = await names('tg-b');
    expect(b1).toEqual(['alpha', 'files', 'only_b']);
    expect(main1).not.toContain('only_b');
    expect(await names('tg-b', '?include=alpha')).toEqual(['alpha']);
    expect(await names('tg-b', '?include=only_b')).toEqual(['only_b']);
    expect(await names('tg-b', '?exclude=alpha')).toEqual(['files', 'only_b']);
    expect(await names('tg-b', '?include=alpha,only_b&exclude=alpha')).toEqual(['only_b']);
    expect(await names('main')).toEqual(main1);
    // A name of another site is unknown here.
    const res = await t.call({ method: 'GET', url: '/api/v1/typegen/schema?include=only_b', as: admin, site: 'main' });
    expect(res.statusCode).toBe(400);
  });
});
