import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import { indexCommands } from './typesense.ts';

const meta = { siteId: 'main' };
const at = '2026-01-01T00:00:00.000Z';

describe('the Typesense indexer', () => {
  it('indexes an item again for each item event, a collection afresh for what changes its indexed fields', () => {
    const item = { ...meta, type: 'ItemUpdated', data: { collection: 'posts', id: 'p1', changes: {}, at } };
    expect(indexCommands(item as never)).toEqual([{ kind: 'item', collection: 'posts', id: 'p1' }]);
    const toggled = {
      ...meta,
      type: 'FieldUpdated',
      data: { collection: 'posts', field: 'body', changes: { searchable: false }, at },
    };
    expect(indexCommands(toggled as never)).toEqual([{ kind: 'collection', collection: 'posts' }]);
    const note = {
      ...meta,
      type: 'FieldUpdated',
      data: { collection: 'posts', field: 'body', changes: { note: 'x' }, at },
    };
    expect(indexCommands(note as never)).toEqual([]);
    const gone = { ...meta, type: 'CollectionDeleted', data: { name: 'posts', at } };
    expect(indexCommands(gone as never)).toEqual([{ kind: 'drop', collection: 'posts' }]);
  });

  it('needs both TYPESENSE_URL and TYPESENSE_API_KEY, and names the one missing', () => {
    expect(() => loadConfig({ TYPESENSE_URL: 'http://127.0.0.1:8108' })).toThrow(/TYPESENSE_API_KEY/);
    expect(() => loadConfig({ TYPESENSE_API_KEY: 'k' })).toThrow(/TYPESENSE_URL/);
    expect(() => loadConfig({ TYPESENSE_URL: 'not a url', TYPESENSE_API_KEY: 'k' })).toThrow(/TYPESENSE_URL/);
    expect(loadConfig({ TYPESENSE_URL: 'http://127.0.0.1:8108', TYPESENSE_API_KEY: 'k' }).TYPESENSE_PREFIX).toBe(
      'svc_',
    );
  });
});
