/**
 * A process-local map of entries with a time to live and a size bound (the oldest entry goes first). For
 * caches whose entries every node may hold a copy of; invalidation across nodes is the caller's (see
 * SharedCache.publish).
 */
export class LocalCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(private readonly opts: { maxEntries: number; now?: () => number }) {}

  private now(): number {
    return this.opts.now ? this.opts.now() : Date.now();
  }

  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  set(key: string, value: V, ttlMs: number): void {
    if (ttlMs <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
    if (this.entries.size > this.opts.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
  }

  delete(key: string): boolean {
    return this.entries.delete(key);
  }

  /** Removes every entry the predicate picks; the number removed (expired ones are not counted). */
  deleteWhere(pick: (key: string, value: V) => boolean): number {
    const now = this.now();
    let n = 0;
    for (const [k, e] of this.entries) {
      if (!pick(k, e.value)) continue;
      this.entries.delete(k);
      if (e.expiresAt > now) n++;
    }
    return n;
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}
