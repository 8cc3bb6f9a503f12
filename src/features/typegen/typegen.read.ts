import type { EventStore } from '../../kernel/es/event-store.ts';
import { schemaSnapshot } from '../schema/index.ts';
import { schemaStream } from '../../contracts/schema/schema.events.ts';
import type { SchemaSnapshot } from '../../contracts/schema/schema.snapshot.ts';
import { Lru } from './typegen.cache.ts';
import { UnknownCollectionName } from './typegen.errors.ts';
import { buildManifest, type ManifestFilter, type TypegenManifest } from './typegen.manifest.ts';

/** Manifests kept per process: a few hundred (site, schema version, filter) answers. */
export const MANIFEST_CACHE_SIZE = 300;

export interface ManifestRequest extends ManifestFilter {
  /** The schema as it was then (folded from the log); such answers are not cached. */
  asOf?: Date;
}

export interface ManifestReader {
  read(site: string, req: ManifestRequest): Promise<TypegenManifest>;
  /** Entries held (tests). */
  readonly cached: number;
}

/** 400 for the first name of `include`/`exclude` that is not a live collection of the snapshot. */
function checkNames(snapshot: SchemaSnapshot, req: ManifestFilter): void {
  const live = new Set(snapshot.collections.map((c) => c.def.name));
  const lists = [
    ['include', req.include ?? []],
    ['exclude', req.exclude],
  ] as const;
  for (const [list, names] of lists) {
    const index = names.findIndex((n) => !live.has(n));
    if (index >= 0) throw new UnknownCollectionName({ list, index, name: names[index]! });
  }
}

const canonical = (names: readonly string[] | null) => (names ? [...new Set(names)].sort().join(',') : '*');

/**
 * Reads manifests through a cache keyed by (site, schema stream version, include, exclude): one cheap version read
 * decides a hit, and every schema change appends to the stream, so a changed schema is never answered from the
 * cache. The version is the snapshot's own, so an entry always matches the schema it was built from.
 */
export function manifestReader(store: EventStore): ManifestReader {
  const cache = new Lru<TypegenManifest>(MANIFEST_CACHE_SIZE);
  const keyOf = (site: string, version: number, req: ManifestFilter) =>
    [site, version, canonical(req.include), canonical(req.exclude)].join('\u0000');
  return {
    async read(site, req) {
      if (req.asOf) {
        const snapshot = await schemaSnapshot(store, site, req.asOf);
        checkNames(snapshot, req);
        return buildManifest(snapshot, site, req);
      }
      const version = (await store.streamVersion(schemaStream(site))) ?? 0;
      const hit = cache.get(keyOf(site, version, req));
      if (hit) return hit;
      const snapshot = await schemaSnapshot(store, site);
      checkNames(snapshot, req);
      const manifest = buildManifest(snapshot, site, req);
      cache.set(keyOf(site, snapshot.version, req), manifest);
      return manifest;
    },
    get cached() {
      return cache.size;
    },
  };
}
