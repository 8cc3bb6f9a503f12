import type { FastifyRequest } from 'fastify';
import type { ItemRead, ListRead } from '../item.reader.ts';
import { readHeaders } from './item-headers.ts';
import { parseAsOf, parseVersion, parseWithDeleted } from './item-history.params.ts';
import { parseItemQuery } from '../item-query.language.ts';

type Raw = Record<string, string>;

/** GET of a collection: the list-query language, `asOf`, `withDeleted` and the locale header, parsed. */
export function listRead(req: FastifyRequest, raw: Raw): ListRead {
  const query = parseItemQuery(raw);
  const withDeleted = parseWithDeleted(raw);
  const asOf = parseAsOf(raw);
  return { ...query, withDeleted, asOf, locale: readHeaders(req).locale };
}

/** GET of one item: `fields` and `deep`, `asOf`, `version`, `withDeleted` and the read headers, parsed. */
export function itemRead(req: FastifyRequest, raw: Raw): ItemRead {
  const withDeleted = parseWithDeleted(raw);
  const asOf = parseAsOf(raw);
  const version = parseVersion(raw);
  const { locale, draft } = readHeaders(req);
  return { query: shape(raw), locale, draft, asOf, version, withDeleted };
}

/** A singleton's record as GET of its collection reads it: only `fields`, `deep` and the locale count. */
export function singletonRead(req: FastifyRequest, raw: Raw) {
  return { query: shape(raw), locale: readHeaders(req).locale };
}

/** `fields` and `deep` of a one-item read, parsed by the list-query language. */
function shape(raw: Raw) {
  const kept = Object.entries(raw).filter(([k]) => k === 'fields' || k.startsWith('deep'));
  const { fields, deep } = parseItemQuery({ ...Object.fromEntries(kept), meta: 'none', limit: '1' });
  return { fields, deep };
}
