import { fieldWithDefaults, type CollectionDef, type FieldDef } from './schema.types.ts';

/** The collection of file records (spec "Files and media"): items whose bytes the files slice keeps in storage. */
export const FILES_COLLECTION = 'files';

const field = (name: string, type: FieldDef['type'], opts: Partial<FieldDef> = {}): FieldDef =>
  fieldWithDefaults({ field: name, type, ...opts });
/** Set once from the stored bytes when the file is registered; never written by a request. */
const fromBytes = (name: string, type: FieldDef['type'], required = true) =>
  field(name, type, { readonly: true, required, nullable: !required });

/**
 * Collections every site has without creating them: their fields are fixed (the schema API refuses to change them),
 * their items are written by their slice, and rules on their resource (`media` for files) govern them. Relations
 * may point at them (an m2o `cover` → `files`), so file records expand like items.
 */
export const SYSTEM_COLLECTIONS: ReadonlyMap<string, { collection: CollectionDef; fields: readonly FieldDef[] }> =
  new Map([
    [
      FILES_COLLECTION,
      {
        collection: {
          name: FILES_COLLECTION,
          displayName: 'Files',
          icon: null,
          note: 'Uploaded files (system collection)',
          singleton: false,
          status_field: null,
          sort_field: null,
          primaryKeyType: 'nanoid',
          workflow: null,
        },
        fields: [
          fromBytes('filename', 'string'),
          fromBytes('type', 'string'),
          fromBytes('filesize', 'bigInteger'),
          fromBytes('sha256', 'string'),
          fromBytes('width', 'integer', false),
          fromBytes('height', 'integer', false),
          field('title', 'string'),
          field('description', 'text'),
          field('tags', 'json'),
          field('folder', 'string'),
          field('focal_point', 'json'),
        ],
      },
    ],
  ]);

export const isSystemCollection = (name: string): boolean => SYSTEM_COLLECTIONS.has(name);
