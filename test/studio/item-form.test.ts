import { describe, expect, it } from 'vitest';
import { changesOf, controlOf, errorsByField, fromInput, toInput, type FieldInfo } from '../../studio/src/item-form.ts';

const field = (f: Partial<FieldInfo> & { field: string; type: string }): FieldInfo => ({
  choices: null,
  interface: null,
  required: false,
  nullable: true,
  readonly: false,
  encrypted: false,
  sort: null,
  ...f,
});

describe('the item form', () => {
  it('picks a control by relation, interface and type', () => {
    expect(
      controlOf(field({ field: 'a', type: 'string' }), {
        id: 'r',
        kind: 'm2o',
        collection: 'p',
        field: 'a',
        target: 'x',
      }),
    ).toBe('m2o');
    expect(controlOf(field({ field: 'a', type: 'string', interface: 'markdown' }))).toBe('textarea');
    expect(controlOf(field({ field: 'a', type: 'decimal' }))).toBe('number');
    expect(controlOf(field({ field: 'a', type: 'enum' }))).toBe('select');
    expect(controlOf(field({ field: 'a', type: 'timestamp' }))).toBe('datetime');
    expect(controlOf(field({ field: 'a', type: 'json' }))).toBe('json');
  });

  it('gives an m2o to the files collection the file control, and only that', () => {
    const m2o = (target: string) => ({ id: 'r', kind: 'm2o' as const, collection: 'p', field: 'cover', target });
    expect(controlOf(field({ field: 'cover', type: 'string' }), m2o('files'))).toBe('file');
    expect(controlOf(field({ field: 'cover', type: 'string' }), m2o('filesets'))).toBe('m2o');
    expect(controlOf(field({ field: 'cover', type: 'uuid', interface: 'image' }))).toBe('text');
  });

  it('holds a file field as the file id, whether the API answers the id or the file expanded', () => {
    expect(toInput('file', 'f1')).toBe('f1');
    expect(toInput('file', { id: 'f1', filename: 'a.png' })).toBe('f1');
    expect(toInput('file', null)).toBe('');
    expect(fromInput('file', 'f1')).toEqual({ value: 'f1' });
    // Removing the file sends null; a new item without one sends nothing.
    const fields = [field({ field: 'cover', type: 'string' })];
    expect(changesOf(fields, { cover: 'file' }, { cover: 'f1' }, { cover: '' }, false).changes).toEqual({
      cover: null,
    });
    expect(changesOf(fields, { cover: 'file' }, {}, { cover: '' }, true).changes).toEqual({});
  });

  it('converts values to the control and back', () => {
    expect(fromInput('number', '12')).toEqual({ value: 12 });
    expect(fromInput('number', '12x')).toEqual({ value: '12x' });
    expect(fromInput('text', '')).toEqual({ value: null });
    expect(fromInput('json', '{')).toHaveProperty('error');
    expect(fromInput('json', toInput('json', { a: 1 }))).toEqual({ value: { a: 1 } });
    const iso = '2025-03-04T05:06:00.000Z';
    expect(fromInput('datetime', toInput('datetime', iso))).toEqual({ value: iso });
  });

  it('sends only what changed, never read-only or untouched (encrypted) values', () => {
    const fields = [
      field({ field: 'title', type: 'string' }),
      field({ field: 'secret', type: 'string', encrypted: true }),
      field({ field: 'locked', type: 'string', readonly: true }),
      field({ field: 'n', type: 'integer' }),
    ];
    const controls = { title: 'text', secret: 'text', locked: 'text', n: 'number' } as const;
    const loaded = { title: 'a', secret: '***', locked: 'x', n: '1' };
    expect(changesOf(fields, controls, loaded, { ...loaded, title: 'b', locked: 'y' }, false)).toEqual({
      changes: { title: 'b' },
      errors: {},
    });
    expect(changesOf(fields, controls, {}, { title: 'a', secret: '', locked: 'x', n: '2' }, true).changes).toEqual({
      title: 'a',
      n: 2,
    });
  });

  it('puts the API errors at their field paths', () => {
    expect(
      errorsByField([
        { code: 'VALIDATION_FAILED', message: 'n must be an integer', path: ['n'] },
        { code: 'VALIDATION_FAILED', message: 'title is required', path: ['body', 'title'] },
        { code: 'CONFLICT', message: 'changed', path: [] },
      ]),
    ).toEqual({ n: ['n must be an integer'], title: ['title is required'], '': ['changed'] });
  });
});
