import { describe, expect, it } from 'vitest';
import { buildCase, hugeStringsBody } from './fuzz-inputs.ts';
import type { SiteData } from './fuzz-world.ts';
import { seeded } from './prng.ts';

const site = (id: string) => ({ site: id, users: [`${id}-user0`, `${id}-user1`] }) as unknown as SiteData;

/** A PATCH body as the OpenAPI document declares it: every key optional, one nested object. */
const patch = {
  type: 'object',
  properties: {
    repository: { type: 'string' },
    baseUrl: { anyOf: [{ type: 'string', format: 'uri' }, { type: 'null' }] },
    authMethod: { type: 'string', enum: ['app', 'pat'] },
    sync_config: { type: 'object', properties: { preview: { type: 'boolean' }, branch: { type: 'string' } } },
  },
};

describe('the huge-strings body', () => {
  it('makes every string, optional and nested ones too, 200 000 characters long, within the body limit', () => {
    const text = hugeStringsBody(patch);
    const body = JSON.parse(text);
    for (const v of [body.repository, body.baseUrl, body.authMethod, body.sync_config.branch])
      expect(v).toHaveLength(200_000);
    expect(body.sync_config.preview).toBe(true);
    expect(text.length).toBeLessThan(1_048_576);
  });

  it('shortens the strings of a wide schema to stay under the body limit', () => {
    const wide = {
      type: 'object',
      properties: Object.fromEntries([...Array(40)].map((_, i) => [`f${i}`, { type: 'string' }])),
    };
    expect(hugeStringsBody(wide).length).toBeLessThan(1_048_576);
  });

  it("aims the foreign kind at the other site's ids", () => {
    const op = {
      method: 'PATCH' as const,
      template: '/api/v1/integrations/git/{id}',
      params: ['id'],
      body: patch,
      html: false,
    };
    const c = buildCase(op, 'body:huge-strings-foreign', site('a'), site('b'), seeded(1));
    expect(c.url).toBe('/api/v1/integrations/git/b-user0');
    expect(JSON.parse(c.body!).repository).toHaveLength(200_000);
  });
});
