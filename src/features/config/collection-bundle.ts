import type { AppDeps } from '../../deps.ts';
import type { ErrorObject } from '../../kernel/http/errors.ts';
import { schemaSnapshot } from '../schema/index.ts';
import { ManifestInvalid } from './config.errors.ts';
import {
  byRelationKey,
  collectionToManifest,
  fieldToManifest,
  MANIFEST_VERSION,
  relationToManifest,
  type Manifest,
} from './manifest.ts';

/**
 * One collection's schema as a manifest: the collection, its fields and the relations its fields carry, managed
 * as one scope, so `PUT /collections/:name/schema` with it changes nothing.
 */
export async function collectionBundle(
  deps: Pick<AppDeps, 'store'>,
  siteId: string,
  name: string,
  now: Date,
): Promise<{ manifest: Manifest; version: number } | null> {
  const snapshot = await schemaSnapshot(deps.store, siteId);
  const c = snapshot.collections.find((x) => x.def.name === name && !x.system);
  if (!c) return null;
  const manifest: Manifest = {
    version: MANIFEST_VERSION,
    exportedAt: now.toISOString(),
    collections: [collectionToManifest(c.def)],
    fields: c.fields.map((f) => fieldToManifest(name, f)),
    relations: snapshot.relations
      .filter((r) => r.collection === name)
      .map(relationToManifest)
      .sort(byRelationKey),
    managedScopes: [name],
  };
  return { manifest, version: snapshot.version };
}

/** A schema bundle carries no webhooks or settings (those are the admin's, through the config import). */
export function schemaOnly(body: unknown): void {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return;
  const errors: ErrorObject[] = (['webhooks', 'settings'] as const)
    .filter((key) => Object.hasOwn(body, key))
    .map((key) => ({
      code: 'VALIDATION_FAILED',
      message: `a schema bundle carries no ${key}`,
      path: [key],
      extensions: {},
    }));
  if (errors.length) throw new ManifestInvalid({ errors, more: 0, diff: null });
}

/** A collection's schema names that collection only: anything else in the bundle is refused with its path. */
export function onlyCollection(body: unknown, name: string): void {
  schemaOnly(body);
  if (!body || typeof body !== 'object' || Array.isArray(body)) return; // the manifest reader answers for its shape
  const b = body as Record<string, unknown>;
  const errors: ErrorObject[] = [];
  const other = (path: string[], message: string) =>
    errors.push({ code: 'VALIDATION_FAILED', message, path, extensions: {} });
  const names = (key: string, prop: string) => {
    const list = Object.hasOwn(b, key) ? b[key] : undefined;
    if (!Array.isArray(list)) return;
    list.forEach((x: unknown, i) => {
      const v = x && typeof x === 'object' ? (x as Record<string, unknown>)[prop] : undefined;
      if (typeof v === 'string' && v !== name)
        other([key, String(i), prop], `this schema is ${name}'s; ${v} is another collection`);
    });
  };
  names('collections', 'name');
  names('fields', 'collection');
  names('relations', 'collection');
  if (errors.length) throw new ManifestInvalid({ errors, more: 0, diff: null });
}
