import { z } from 'zod';
import { isInheritedName } from './keys.ts';

/**
 * Ids of records that are keys of a model (roles, policies, teams, rules, users): letters, digits, `_` and `-`,
 * never a name every object inherits (earlier versions looked such ids up in plain objects, and a log may still
 * hold them). Up to 100 characters: managed ids embed a collection name (`subscriber-access-<collection>`).
 */
export const RecordId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,100}$/, 'ids are 1–100 characters: letters, digits, _ and -')
  .refine((id) => !isInheritedName(id), 'ids may not name object prototype members');
