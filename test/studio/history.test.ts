import { describe, expect, it } from 'vitest';
import {
  asOfParam,
  compareRows,
  draftChanges,
  parseDraft,
  revisionChanges,
  sameValue,
  showField,
} from '../../studio/src/history.ts';

describe('revisionChanges', () => {
  it('shows every field of the first revision as added, id left out', () => {
    const create = { data: { id: '1', title: 'Draft', views: 0 }, delta: { id: '1', title: 'Draft', views: 0 } };
    expect(revisionChanges(create, null)).toEqual([
      { field: 'title', before: undefined, after: 'Draft', kind: 'added' },
      { field: 'views', before: undefined, after: 0, kind: 'added' },
    ]);
  });

  it('shows only what an update changed, old → new', () => {
    const previous = { id: '1', title: 'Draft', views: 3, tags: ['a'] };
    const update = { data: { id: '1', title: 'Final', views: 3, tags: ['a'] }, delta: { title: 'Final' } };
    expect(revisionChanges(update, previous)).toEqual([
      { field: 'title', before: 'Draft', after: 'Final', kind: 'changed' },
    ]);
  });

  it('finds changes the delta does not name (a revert or a promote) and a value set to null as removed', () => {
    const previous = { id: '1', title: 'Final', body: 'text', meta: { a: 1, b: 2 } };
    const revert = { data: { id: '1', title: 'Draft', body: null, meta: { b: 2, a: 1 } }, delta: {} };
    expect(revisionChanges(revert, previous)).toEqual([
      { field: 'title', before: 'Final', after: 'Draft', kind: 'changed' },
      { field: 'body', before: 'text', after: null, kind: 'removed' },
    ]);
  });

  it('leaves out a delta key that neither state shows (a field the caller may not read)', () => {
    const update = { data: { id: '1', title: 'Same' }, delta: { secret: 'xyz' } };
    expect(revisionChanges(update, { id: '1', title: 'Same' })).toEqual([]);
  });

  it('has nothing to show for a delete or a restore (no value changed)', () => {
    const values = { id: '1', title: 'Kept' };
    expect(revisionChanges({ data: values, delta: {} }, values)).toEqual([]);
  });
});

describe('compareRows', () => {
  it('puts main and the version side by side, id first, marking the fields that differ', () => {
    const rows = compareRows({ title: 'Main', id: '1', n: 1 }, { id: '1', title: 'Draft', n: 1, extra: true });
    expect(rows).toEqual([
      { field: 'id', main: '1', version: '1', differs: false },
      { field: 'title', main: 'Main', version: 'Draft', differs: true },
      { field: 'n', main: 1, version: 1, differs: false },
      { field: 'extra', main: undefined, version: true, differs: true },
    ]);
  });
});

describe('draftChanges and parseDraft', () => {
  it('sends only the keys the JSON edit changed, a removed key as null, never id', () => {
    const before = { id: '1', title: 'A', body: 'B', list: [1, 2] };
    const after = { id: '2', title: 'A2', list: [1, 2] };
    expect(draftChanges(before, after)).toEqual({ title: 'A2', body: null });
  });

  it('accepts a JSON object only', () => {
    expect(parseDraft('{"a":1}')).toEqual({ ok: true, values: { a: 1 } });
    expect(parseDraft('[1]')).toEqual({ ok: false, error: 'not a JSON object' });
    expect(parseDraft('{oops').ok).toBe(false);
  });
});

describe('sameValue, asOfParam and showField', () => {
  it('compares JSON values deeply, key order aside, missing as null', () => {
    expect(sameValue({ a: [1, { b: 2, c: 3 }] }, { a: [1, { c: 3, b: 2 }] })).toBe(true);
    expect(sameValue(undefined, null)).toBe(true);
    expect(sameValue([1, 2], [2, 1])).toBe(false);
    expect(sameValue('1', 1)).toBe(false);
  });

  it('turns a datetime-local value into an ISO time in UTC, and nothing else', () => {
    const local = '2026-03-01T10:15:30';
    expect(asOfParam(local)).toBe(new Date(local).toISOString());
    expect(asOfParam('2026-03-01T10:15')).toBe(new Date('2026-03-01T10:15').toISOString());
    expect(asOfParam('')).toBeNull();
    expect(asOfParam('yesterday')).toBeNull();
    expect(asOfParam('2026-13-45T99:99')).toBeNull();
  });

  it('shows nothing as a dash, strings as they are, the rest as JSON', () => {
    expect(showField(null)).toBe('—');
    expect(showField(undefined)).toBe('—');
    expect(showField('x')).toBe('x');
    expect(showField({ a: 1 })).toBe('{"a":1}');
    expect(showField(false)).toBe('false');
  });
});
