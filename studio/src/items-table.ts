/** The items table's pure parts: which columns to show, how a value reads in a cell, how many pages there are. */

export const PAGE_SIZE = 25;
const MAX_COLUMNS = 8;
const MAX_CELL = 120;

/** Columns of a page of items: `id` first, then the other keys in the order first seen, at most eight. */
export function columnsOf(rows: Record<string, unknown>[]): string[] {
  const seen = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) seen.add(key);
  const rest = [...seen].filter((k) => k !== 'id');
  return [...(seen.has('id') ? ['id'] : []), ...rest].slice(0, MAX_COLUMNS);
}

/** A value as text in a cell: nothing for null/undefined, JSON for objects and arrays, cut at 120 characters. */
export function showValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.length > MAX_CELL ? `${text.slice(0, MAX_CELL - 1)}…` : text;
}

/** Pages of a list of `total` items; at least one. */
export function pageCount(total: number | undefined, size: number): number {
  if (total === undefined || !Number.isFinite(total) || total <= 0) return 1;
  return Math.ceil(total / size);
}
