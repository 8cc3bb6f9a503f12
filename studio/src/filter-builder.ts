/**
 * The items table's filter builder as data: conditions (a field, an operator, a value as typed) in and/or groups,
 * mapped to the API's JSON filter (spec "Filter operators") and back. Pure, so the mapping is unit-tested.
 */

/** How an operator takes its value: none (`_null`), one, a comma list, two (`_between`) or a JSON value. */
export type Arity = 'none' | 'one' | 'list' | 'pair' | 'json';

export const OPERATORS = {
  _eq: 'one',
  _neq: 'one',
  _lt: 'one',
  _lte: 'one',
  _gt: 'one',
  _gte: 'one',
  _in: 'list',
  _nin: 'list',
  _null: 'none',
  _nnull: 'none',
  _contains: 'one',
  _icontains: 'one',
  _starts_with: 'one',
  _ends_with: 'one',
  _between: 'pair',
  _json_contains: 'json',
  _has_key: 'one',
  _has_any_keys: 'list',
  _has_all_keys: 'list',
} as const satisfies Record<string, Arity>;

export type Operator = keyof typeof OPERATORS;
export const OPERATOR_NAMES = Object.keys(OPERATORS) as Operator[];
export type Logic = '_and' | '_or';

export interface Condition {
  kind: 'condition';
  id: string;
  field: string;
  op: Operator;
  /** As typed: a comma list for list operators, `a, b` for `_between`, JSON for `_json_contains`. */
  value: string;
}

export interface Group {
  kind: 'group';
  id: string;
  logic: Logic;
  children: FilterNode[];
}

export type FilterNode = Condition | Group;
export type Filter = Record<string, unknown>;

/** The value types a field may have; numbers and booleans are sent as such, everything else as text. */
export type FieldTypes = Record<string, string>;

const NUMERIC = new Set(['integer', 'bigInteger', 'decimal']);
const KEY_OPERATORS = new Set<Operator>(['_has_key', '_has_any_keys', '_has_all_keys']);
const CLEAN_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?$/;

let counter = 0;
/** A fresh id for a node (React keys and error addresses). */
export const nodeId = (): string => `n${++counter}`;

export const emptyGroup = (logic: Logic = '_and'): Group => ({ kind: 'group', id: nodeId(), logic, children: [] });
export const newCondition = (field = '', op: Operator = '_eq', value = ''): Condition => ({
  kind: 'condition',
  id: nodeId(),
  field,
  op,
  value,
});

/** One scalar as typed: by the field's type when known, else as the API coerces bracket values. */
export function scalar(text: string, type: string | undefined): unknown {
  const v = text.trim();
  if (type !== undefined) {
    if (NUMERIC.has(type) && CLEAN_NUMBER.test(v)) return Number(v);
    if (type === 'boolean' && (v === 'true' || v === 'false')) return v === 'true';
    return v;
  }
  if (v === 'true' || v === 'false') return v === 'true';
  if (v === 'null') return null;
  if (CLEAN_NUMBER.test(v)) return Number(v);
  return v;
}

const splitList = (text: string): string[] =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

export interface BuildError {
  id: string;
  message: string;
}

/** A condition's value for the API, or the reason it has none. */
function valueOf(c: Condition, types: FieldTypes | undefined): { value: unknown } | { error: string } {
  const type = types?.[c.field];
  const typed = (s: string) => (KEY_OPERATORS.has(c.op) ? s.trim() : scalar(s, type));
  switch (OPERATORS[c.op]) {
    case 'none':
      return { value: true };
    case 'one':
      if (c.value.trim() === '') return { error: 'a value is needed' };
      return { value: typed(c.value) };
    case 'list': {
      const items = splitList(c.value);
      if (items.length === 0) return { error: 'at least one value is needed (comma separated)' };
      return { value: items.map(typed) };
    }
    case 'pair': {
      const items = splitList(c.value);
      if (items.length !== 2) return { error: 'two values are needed: from, to' };
      return { value: items.map(typed) };
    }
    case 'json':
      try {
        return { value: JSON.parse(c.value) as unknown };
      } catch {
        return { error: 'the value must be JSON' };
      }
  }
}

/**
 * The JSON filter of a group: null when it has no condition; one condition alone is `{field: {op: value}}`;
 * several are `{_and: […]}` or `{_or: […]}`. Conditions without a field or a usable value are reported by id.
 */
export function toFilter(root: Group, types?: FieldTypes): { filter: Filter | null; errors: BuildError[] } {
  const errors: BuildError[] = [];
  const walk = (node: FilterNode): Filter | null => {
    if (node.kind === 'condition') {
      if (node.field.trim() === '') {
        errors.push({ id: node.id, message: 'choose a field' });
        return null;
      }
      const v = valueOf(node, types);
      if ('error' in v) {
        errors.push({ id: node.id, message: v.error });
        return null;
      }
      return { [node.field.trim()]: { [node.op]: v.value } };
    }
    const parts = node.children.map(walk).filter((f): f is Filter => f !== null);
    if (parts.length === 0) return null;
    if (parts.length === 1 && node.logic === '_and') return parts[0]!;
    return { [node.logic]: parts };
  };
  const filter = walk(root);
  return { filter: errors.length > 0 ? null : filter, errors };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function textOf(op: Operator, value: unknown): string {
  const arity = OPERATORS[op];
  if (arity === 'json') return JSON.stringify(value);
  if (arity === 'none') return '';
  if (Array.isArray(value)) return value.map((v) => String(v)).join(', ');
  return value === null ? 'null' : String(value);
}

/**
 * A JSON filter back as a builder tree (to edit a saved view's filter), or null when it uses something the builder
 * cannot show (then it stays in the raw JSON box).
 */
export function fromFilter(filter: unknown): Group | null {
  const group = (logic: Logic, parts: unknown[]): Group | null => {
    const children: FilterNode[] = [];
    for (const p of parts) {
      const node = fromObject(p);
      if (!node) return null;
      if (node.kind === 'group' && node.logic === '_and' && logic === '_and') children.push(...node.children);
      else children.push(node);
    }
    return { kind: 'group', id: nodeId(), logic, children };
  };
  const fromObject = (f: unknown): FilterNode | null => {
    if (!isObject(f)) return null;
    const keys = Object.keys(f);
    if (keys.length === 1 && (keys[0] === '_and' || keys[0] === '_or')) {
      const parts = f[keys[0]];
      return Array.isArray(parts) ? group(keys[0], parts) : null;
    }
    const conditions: FilterNode[] = [];
    for (const field of keys) {
      if (field.startsWith('_')) return null;
      const ops = f[field];
      if (!isObject(ops)) return null;
      for (const [op, value] of Object.entries(ops)) {
        if (!Object.hasOwn(OPERATORS, op)) return null;
        conditions.push(newCondition(field, op as Operator, textOf(op as Operator, value)));
      }
    }
    if (conditions.length === 1) return conditions[0]!;
    return { kind: 'group', id: nodeId(), logic: '_and', children: conditions };
  };
  if (filter === null || filter === undefined) return emptyGroup();
  const node = fromObject(filter);
  if (!node) return null;
  return node.kind === 'group' ? node : { kind: 'group', id: nodeId(), logic: '_and', children: [node] };
}

/** The tree with one node replaced (by id), removed (`null`), or a child added to a group. */
export function updateNode(root: Group, id: string, change: (node: FilterNode) => FilterNode | null): Group {
  const walk = (node: FilterNode): FilterNode | null => {
    if (node.id === id) return change(node);
    if (node.kind === 'condition') return node;
    return { ...node, children: node.children.map(walk).filter((n): n is FilterNode => n !== null) };
  };
  return (walk(root) as Group | null) ?? emptyGroup();
}
