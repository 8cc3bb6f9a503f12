import { z } from 'zod';
import { NAME_PATTERN } from '../../../contracts/schema/schema.types.ts';
import { pathId } from '../../../kernel/http/path-params.ts';

const name = z.string().regex(NAME_PATTERN);
export const CollectionParams = z.object({ collection: name });
export const ItemParams = z.object({ collection: name, id: pathId(128) });
