import type { FieldType } from '../schema/index.ts';
export { convertible } from '../schema/index.ts';
export type { FieldType };
