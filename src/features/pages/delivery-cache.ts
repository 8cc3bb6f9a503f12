import type { StoredEvent } from '../../kernel/es/event.ts';
import type { StoredEventOf } from '../../kernel/es/projector.ts';
import { LocalCache } from '../../platform/cache/local-cache.ts';
import type { SharedCache } from '../../kernel/cache/shared-cache.ts';
import { jitteredTtlMs } from '../../platform/cache/ttl.ts';
import { ITEM_EVENT_TYPES, type ItemEvent } from '../../contracts/items/item.events.ts';
import { SCHEMA_EVENT_TYPES, type SchemaEvent } from '../../contracts/schema/schema.events.ts';
import type { PageEvent } from '../../contracts/pages/page.events.ts';

/** A delivered page as sent: the body, its ETag, and what it was made of (for invalidation). */
export interface DeliveredPage {
  body: string;
  etag: string;
  slug: string;
  pageId: string;
  /** `<collection>/<id>` of every item the page references. */
  refs: Set<string>;
  /** The collections its blocks' relation paths reach (null: any): a change to any of their items drops it. */
  related?: Set<string> | null;
}

/** What to drop from the delivery caches of one site. `all`: everything of the site. */
export interface Invalidation {
  site: string;
  all?: boolean;
  slugs?: string[];
  pageIds?: string[];
  items?: string[];
  collections?: string[];
}

/** Whether a page's relation paths reach the item `<collection>/<id>`. */
const reaches = (p: DeliveredPage, item: string) =>
  p.related !== undefined && (p.related === null || p.related.has(item.slice(0, item.indexOf('/'))));

const CHANNEL = 'deliver:invalidate';
const PER_SITE = 1000;
const negKey = (site: string, slug: string) => `deliver:neg:${site}:${slug}`;
const ITEM_TYPES = new Set<string>(ITEM_EVENT_TYPES);
const SCHEMA_TYPES = new Set<string>(SCHEMA_EVENT_TYPES);
type Heard = StoredEventOf<ItemEvent | PageEvent | SchemaEvent>;
const isItemEvent = (e: Heard): e is StoredEventOf<ItemEvent> => ITEM_TYPES.has(e.type);

/**
 * The delivery API's caches. Negative markers (unknown slugs) live in the shared cache, so a page created on any
 * node clears them for every node at once. Resolved pages live in each node's memory: dropped by this node's own
 * writes as they commit (store.onAppended), and on the other nodes by a message over the shared cache's channel
 * (Redis pub/sub); a lost message leaves a node stale for at most the response TTL.
 */
export class DeliveryCache {
  private readonly sites = new Map<string, LocalCache<DeliveredPage>>();
  /** Bumped by every invalidation of a site: a page resolved across one is not cached (it may be stale). */
  private readonly generations = new Map<string, number>();
  /** Renders under way on this node, by site, slug and generation: a miss joins the one running. */
  private readonly flights = new Map<string, Promise<DeliveredPage | null>>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly shared: SharedCache,
    private readonly ttl: { negativeS: number; responseS: number },
  ) {
    this.unsubscribe = shared.subscribe(CHANNEL, (m) => {
      try {
        this.dropLocal(JSON.parse(m) as Invalidation);
      } catch {
        // A malformed message drops nothing; entries still expire by their TTL.
      }
    });
  }

  get negativeEnabled(): boolean {
    return this.ttl.negativeS > 0;
  }

  generation(site: string): number {
    return this.generations.get(site) ?? 0;
  }

  response(site: string, slug: string): DeliveredPage | undefined {
    return this.sites.get(site)?.get(slug);
  }

  /** Keeps a resolved page, unless the site changed since `generation` (read when resolving began). */
  keep(site: string, page: DeliveredPage, generation: number): void {
    if (this.ttl.responseS <= 0 || this.generation(site) !== generation) return;
    let c = this.sites.get(site);
    if (!c) this.sites.set(site, (c = new LocalCache({ maxEntries: PER_SITE })));
    c.set(page.slug, page, jitteredTtlMs(this.ttl.responseS));
  }

  /**
   * Renders a page once for every concurrent miss of it on this node (`make` gets the generation it began in): N
   * anonymous requests for an uncached page cost one render, not N. A request after an invalidation does not join
   * a render begun before it (the generation is part of the key), so it never receives a page older than its ask.
   */
  render(site: string, slug: string, make: (generation: number) => Promise<DeliveredPage | null>) {
    const generation = this.generation(site);
    const key = JSON.stringify([site, slug, generation]);
    const running = this.flights.get(key);
    if (running) return running;
    const flight = make(generation).finally(() => this.flights.delete(key));
    this.flights.set(key, flight);
    return flight;
  }

  async isMissing(site: string, slug: string): Promise<boolean> {
    return this.negativeEnabled && (await this.shared.get(negKey(site, slug))) !== null;
  }

  async markMissing(site: string, slug: string): Promise<void> {
    if (this.negativeEnabled) await this.shared.set(negKey(site, slug), '1', jitteredTtlMs(this.ttl.negativeS));
  }

  /** Drops what `inv` names here, on the other nodes and in the shared cache; the number of entries dropped. */
  async invalidate(inv: Invalidation): Promise<number> {
    let n = this.dropLocal(inv);
    if (inv.all) n += await this.shared.deletePrefix(`deliver:neg:${inv.site}:`);
    else if (inv.slugs?.length) n += await this.shared.delete(inv.slugs.map((s) => negKey(inv.site, s)));
    await this.shared.publish(CHANNEL, JSON.stringify(inv));
    return n;
  }

  private dropLocal(inv: Invalidation): number {
    this.generations.set(inv.site, this.generation(inv.site) + 1);
    const c = this.sites.get(inv.site);
    if (!c) return 0;
    if (inv.all) {
      const n = c.deleteWhere(() => true);
      this.sites.delete(inv.site);
      return n;
    }
    const slugs = new Set(inv.slugs);
    const pages = new Set(inv.pageIds);
    const items = inv.items ?? [];
    const collections = inv.collections ?? [];
    return c.deleteWhere(
      (slug, p) =>
        slugs.has(slug) ||
        pages.has(p.pageId) ||
        items.some((i) => p.refs.has(i) || reaches(p, i)) ||
        (collections.length > 0 && [...p.refs].some((r) => collections.includes(r.slice(0, r.indexOf('/'))))),
    );
  }

  /** What committed events make stale: pages (and their slugs), items, and a site's schema (everything). */
  onAppended(events: readonly StoredEvent[]): void {
    const bySite = new Map<string, Invalidation>();
    const of = (site: string) => {
      let inv = bySite.get(site);
      if (!inv) bySite.set(site, (inv = { site, slugs: [], pageIds: [], items: [] }));
      return inv;
    };
    // Only the types below are looked at; the others pass by whatever they are.
    for (const e of events as readonly Heard[]) {
      if (e.type === 'PageCreated' || e.type === 'PageUpdated' || e.type === 'PageDeleted') {
        const inv = of(e.siteId);
        inv.pageIds!.push(e.data.pageId);
        inv.slugs!.push(...pageSlugs(e));
      } else if (isItemEvent(e)) of(e.siteId).items!.push(`${e.data.collection}/${e.data.id}`);
      else if (SCHEMA_TYPES.has(e.type)) of(e.siteId).all = true;
    }
    for (const inv of bySite.values()) void this.invalidate(inv).catch(() => undefined);
  }

  close(): void {
    this.unsubscribe();
    this.sites.clear();
  }
}

/** The slugs a page event touches: the page's, the one it was renamed from and the one it was renamed to. */
export function pageSlugs(e: PageEvent): string[] {
  switch (e.type) {
    case 'PageCreated':
    case 'PageDeleted':
      return [e.data.slug];
    case 'PageUpdated':
      return e.data.previousSlug ? [e.data.slug, e.data.previousSlug] : [e.data.slug];
  }
}
