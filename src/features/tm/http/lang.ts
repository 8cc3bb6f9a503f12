import { InvalidLanguage } from '../tm.errors.ts';
import { canonicalLanguage } from '../../../contracts/tm/tm.types.ts';

/** A tag the schema accepted, in its canonical case; 400 when it is not a language at all. */
export function lang<T extends string | undefined>(tag: T): T {
  if (tag === undefined) return tag;
  const canonical = canonicalLanguage(tag);
  if (!canonical) throw new InvalidLanguage({ tag });
  return canonical as T;
}
