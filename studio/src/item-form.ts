/**
 * The item editor's pure parts: which control a field gets, how an API value reads in that control and back, what a
 * save sends (only what changed), and where the API's errors go (their field paths).
 */
import type { ApiErrorEntry } from './api/client.ts';
import { fileIdOf, FILES_COLLECTION } from './files.ts';

/** A field as `GET /fields/:collection` answers it (the parts the editor uses). */
export interface FieldInfo {
  field: string;
  type: string;
  choices: string[] | null;
  interface: string | null;
  required: boolean;
  nullable: boolean;
  readonly: boolean;
  encrypted: boolean;
  personal?: boolean;
  sort: number | null;
}

/** A relation as `GET /relations` answers it. */
export interface RelationInfo {
  id: string;
  kind: 'm2o' | 'o2m' | 'm2m' | 'm2a';
  collection: string;
  field: string;
  target: string | null;
}

export type Control =
  | 'text'
  | 'textarea'
  | 'number'
  | 'boolean'
  | 'date'
  | 'time'
  | 'datetime'
  | 'json'
  | 'select'
  | 'm2o'
  | 'file'
  | 'list';

/**
 * The control of a field: its relation first, then its interface, then its value type. A file field is an m2o to
 * the files collection: the API checks, expands and delivers file references through that relation only, so an
 * interface name (`file`, `image`) on a field without it gets no upload.
 */
export function controlOf(f: FieldInfo, relation?: RelationInfo): Control {
  if (relation?.kind === 'm2o' && relation.target === FILES_COLLECTION) return 'file';
  if (relation?.kind === 'm2o' && relation.target) return 'm2o';
  if (relation && (relation.kind === 'o2m' || relation.kind === 'm2m' || relation.kind === 'm2a')) return 'list';
  if (f.interface === 'textarea' || f.interface === 'markdown' || f.interface === 'wysiwyg') return 'textarea';
  switch (f.type) {
    case 'text':
      return 'textarea';
    case 'integer':
    case 'bigInteger':
    case 'decimal':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'date':
      return 'date';
    case 'time':
      return 'time';
    case 'datetime':
    case 'timestamp':
      return 'datetime';
    case 'json':
    case 'geometry':
      return 'json';
    case 'enum':
      return 'select';
    default:
      return 'text';
  }
}

/** What a form holds per field: text for text-like controls, a boolean for a checkbox. */
export type FormValue = string | boolean;
export type FormValues = Record<string, FormValue>;

const pad = (n: number) => String(n).padStart(2, '0');

/** An API value as its control shows it. */
export function toInput(control: Control, value: unknown): FormValue {
  if (control === 'boolean') return value === true;
  if (value === null || value === undefined) return '';
  if (control === 'file') return fileIdOf(value);
  if (control === 'json' || control === 'list') return JSON.stringify(value, null, 2);
  if (control === 'datetime' && typeof value === 'string') {
    const d = new Date(value);
    if (Number.isNaN(d.getTime())) return value;
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
  }
  if (control === 'time' && typeof value === 'string') return value.slice(0, 8);
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

const CLEAN_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?$/;

/**
 * A control's value for the API, or a message when it cannot be one (invalid JSON). An empty control is null; a
 * number field's text that is no number is sent as typed, so that the API's own validation names the problem.
 */
export function fromInput(control: Control, input: FormValue): { value: unknown } | { error: string } {
  if (control === 'boolean') return { value: input === true };
  const text = String(input);
  if (text.trim() === '') return { value: null };
  switch (control) {
    case 'number':
      return { value: CLEAN_NUMBER.test(text.trim()) ? Number(text.trim()) : text };
    case 'json':
      try {
        return { value: JSON.parse(text) as unknown };
      } catch {
        return { error: 'This is not valid JSON.' };
      }
    case 'datetime': {
      const d = new Date(text);
      return { value: Number.isNaN(d.getTime()) ? text : d.toISOString() };
    }
    default:
      return { value: text };
  }
}

/** The fields the form edits, in the collection's order (`sort`, then as listed). */
export function editableFields(fields: FieldInfo[]): FieldInfo[] {
  return fields
    .map((f, i) => ({ f, i }))
    .sort((a, b) => (a.f.sort ?? Infinity) - (b.f.sort ?? Infinity) || a.i - b.i)
    .map(({ f }) => f);
}

/** The form's values of an item. */
export function formOf(
  fields: FieldInfo[],
  controls: Record<string, Control>,
  item: Record<string, unknown>,
): FormValues {
  const values: FormValues = {};
  for (const f of fields) values[f.field] = toInput(controls[f.field] ?? 'text', item[f.field]);
  return values;
}

/**
 * What a save sends: the fields whose control differs from what was loaded (all set fields for a new item), as API
 * values; read-only, relation lists and untouched fields (an encrypted '***' among them) are never sent.
 */
export function changesOf(
  fields: FieldInfo[],
  controls: Record<string, Control>,
  loaded: FormValues,
  current: FormValues,
  creating: boolean,
): { changes: Record<string, unknown>; errors: Record<string, string> } {
  const changes: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const f of fields) {
    const control = controls[f.field] ?? 'text';
    if (f.readonly || control === 'list') continue;
    const now = current[f.field];
    if (now === undefined) continue;
    if (creating ? now === '' || now === false : now === loaded[f.field]) continue;
    const v = fromInput(control, now);
    if ('error' in v) errors[f.field] = v.error;
    else changes[f.field] = v.value;
  }
  return { changes, errors };
}

/** The API's errors by the field their path names (`path[0]`); the others under ''. */
export function errorsByField(errors: ApiErrorEntry[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const e of errors) {
    const head = e.path?.[0];
    const key = typeof head === 'string' && head !== 'body' ? head : typeof e.path?.[1] === 'string' ? e.path[1] : '';
    (out[key] ??= []).push(e.message);
  }
  return out;
}

/** The fields whose values differ between two versions of an item (for the conflict dialog). */
export function differingFields(fields: string[], a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  return fields.filter((f) => JSON.stringify(a[f] ?? null) !== JSON.stringify(b[f] ?? null));
}
