import { z } from 'zod';
import { checkCallerKey } from '../../platform/http/caller-key.ts';

/** Page slugs (spec "Page"): lower-case words joined by `/`, `_` or `-`, at most 200 characters. */
export const SLUG_PATTERN = /^[a-z0-9]+(?:[/_-][a-z0-9]+)*$/;
export const SLUG_MAX = 200;
export const LAYOUT_LIMITS = { rows: 50, columns: 12, itemBlocks: 100, blocksPerColumn: 100, textChars: 20_000 };

const NAME = /^[a-z][a-z0-9_]{0,62}$/;
/** A block's field: a name, or a path through relations (`author.name`, `author.*`), at most 8 levels as item reads. */
const FIELD_PATH = /^([a-z][a-z0-9_]{0,62}|\*)(\.([a-z][a-z0-9_]{0,62}|\*)){0,7}$/;

export const Slug = z
  .string()
  .max(SLUG_MAX, `a slug has at most ${SLUG_MAX} characters`)
  .regex(SLUG_PATTERN, 'a slug is lower-case letters and digits, joined by /, _ or -')
  .superRefine(checkCallerKey);

/** A block showing one item of a collection; `fields` narrows what the delivery sends of it. */
const ItemBlock = z
  .object({
    type: z.literal('item'),
    collection: z.string().regex(NAME, 'a collection name'),
    itemId: z.string().min(1).max(200),
    fields: z
      .array(z.string().max(300).regex(FIELD_PATH, 'a field or a path (author.name)'))
      .min(1)
      .max(100)
      .optional(),
  })
  .strict();
/** A block of free text (rendered by the client as it likes: plain text or Markdown). */
const TextBlock = z.object({ type: z.literal('text'), text: z.string().max(LAYOUT_LIMITS.textChars) }).strict();
const Block = z.discriminatedUnion('type', [ItemBlock, TextBlock]);
const Column = z
  .object({
    width: z.number().int().min(1).max(12),
    blocks: z.array(Block).max(LAYOUT_LIMITS.blocksPerColumn),
  })
  .strict();
const Row = z
  .object({
    columns: z
      .array(Column)
      .min(1)
      .max(LAYOUT_LIMITS.columns)
      .refine((cols) => cols.reduce((n, c) => n + c.width, 0) <= 12, 'the widths of a row add up to at most 12'),
  })
  .strict();

/**
 * The page builder's layout: rows of columns on a 12-column grid, each column a list of blocks (an item of a
 * collection, or text). At most 50 rows, 12 columns a row and 100 item blocks a page.
 */
export const LayoutConfig = z
  .object({ rows: z.array(Row).max(LAYOUT_LIMITS.rows) })
  .strict()
  .superRefine((layout, ctx) => {
    if (itemRefs(layout).length > LAYOUT_LIMITS.itemBlocks)
      ctx.addIssue({
        code: 'custom',
        path: ['rows'],
        message: `a page has at most ${LAYOUT_LIMITS.itemBlocks} item blocks`,
      });
  });
export type LayoutConfig = z.infer<typeof LayoutConfig>;

/** One item a page shows; `fields` null: all of them. */
export interface ItemRef {
  collection: string;
  itemId: string;
  fields: string[] | null;
}

/** The item blocks of a layout, in page order (duplicates included). */
export function itemRefs(layout: LayoutConfig | null | undefined): ItemRef[] {
  if (!layout) return [];
  return layout.rows.flatMap((r) =>
    r.columns.flatMap((c) =>
      c.blocks.flatMap((b) =>
        b.type === 'item' ? [{ collection: b.collection, itemId: b.itemId, fields: b.fields ?? null }] : [],
      ),
    ),
  );
}

/** The key of an item in a delivered page's `items`: `<collection>/<id>`. */
export const itemKey = (collection: string, id: string) => `${collection}/${id}`;
