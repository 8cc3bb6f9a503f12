import { z } from 'zod';
import { OpenRecord } from '../../kernel/http/envelope.ts';
import { checkCallerKey } from '../../platform/http/caller-key.ts';
import { PRESET_SCOPES } from '../../contracts/presets/presets.events.ts';

/** A collection name as the schema spells them. */
const Collection = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'a collection name');
const OwnerId = z.string().min(1).max(64);
/** A field list entry: `*`, a field or a dotted path (`author.name`, `author.*`). */
const FieldPath = z.string().min(1).max(200);
const Bookmark = z.string().trim().min(1).max(100).superRefine(checkCallerKey);
const Layout = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, 'a layout name: a letter, then letters, digits, - or _ (at most 64)');

/** The list parameters of a view; a missing key is the client's default (null). */
export const PresetQueryBody = z
  .object({
    fields: z.array(FieldPath).max(200).nullable().default(null),
    filter: OpenRecord.nullable().default(null),
    sort: z.array(FieldPath).max(20).nullable().default(null),
    limit: z.number().int().min(1).max(200).nullable().default(null),
    search: z.string().max(500).nullable().default(null),
  })
  .strict();

const EMPTY_QUERY = { fields: null, filter: null, sort: null, limit: null, search: null };

const ownership = {
  scope: z
    .enum(PRESET_SCOPES)
    .optional()
    .describe('An extra that must agree with the owner: userId set is user, roleId set role, neither global'),
  userId: OwnerId.nullable().optional().describe("The owning user (user scope): the caller's own id for one's own"),
  roleId: OwnerId.nullable().optional().describe('The owning role (role scope); neither owner: a global preset'),
};

const bothOwners = (v: { userId?: string | null; roleId?: string | null }) =>
  !(typeof v.userId === 'string' && typeof v.roleId === 'string');
const BOTH = { message: 'a preset has a user or a role, not both', path: ['roleId'] };

/** POST body: the collection, the ownership, and the view (a bookmark name, or null for the scope's default view). */
export const PresetCreateBody = z
  .object({
    collection: Collection,
    ...ownership,
    bookmark: Bookmark.nullable().default(null),
    layout: Layout.nullable().default(null),
    layoutOptions: OpenRecord.nullable().default(null),
    query: PresetQueryBody.default(EMPTY_QUERY),
  })
  .strict()
  .refine(bothOwners, BOTH);

/** PATCH body: the named settings replace the preset's; `query` replaces the whole query. */
export const PresetPatchBody = z
  .object({
    collection: Collection,
    ...ownership,
    bookmark: Bookmark.nullable(),
    layout: Layout.nullable(),
    layoutOptions: OpenRecord.nullable(),
    query: PresetQueryBody,
  })
  .partial()
  .strict()
  .refine(bothOwners, BOTH);

export type PresetCreate = z.output<typeof PresetCreateBody>;
export type PresetPatch = z.output<typeof PresetPatchBody>;
