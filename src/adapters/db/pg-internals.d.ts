/** The two internals of node-postgres that the site-scoped reader builds on (pg 8; exported as `pg/lib/*`). */
declare module 'pg/lib/result.js' {
  export default class Result {
    constructor(rowMode: string | undefined, types: unknown);
    command: string;
    rowCount: number | null;
    rows: unknown[];
    addFields(fields: unknown[]): void;
    parseRow(fields: unknown[]): unknown;
    addRow(row: unknown): void;
    addCommandComplete(msg: unknown): void;
  }
}

declare module 'pg/lib/utils.js' {
  export function prepareValue(value: unknown): unknown;
}
