import type { StoredEvent } from './event.ts';

/**
 * One step from an event as it was once stored to its next shape. Events are forever: a stored event is never
 * rewritten, so a change of shape is a new schema version (or a new type) and an upcaster that every read applies.
 */
export interface Upcaster {
  /** The stored type and schema version this step reads. */
  type: string;
  fromVersion: number;
  /** The type the event becomes; the same type when left out. */
  toType?: string;
  /** The schema version it becomes: `fromVersion + 1` for the same type, 1 for a new type when left out. */
  toVersion?: number;
  up(data: unknown, event: Readonly<StoredEvent>): unknown;
}

const key = (type: string, version: number) => `${version}\u0000${type}`;

/**
 * The upcasters of one store: `upcast` brings an event read in an older shape to today's, step by step;
 * `currentVersion` is the version an append of that type is stamped with, so new events are never upcast.
 */
export class Upcasters {
  private readonly steps = new Map<string, Upcaster>();
  private readonly current = new Map<string, number>();

  register(...upcasters: Upcaster[]): this {
    for (const u of upcasters) {
      const k = key(u.type, u.fromVersion);
      if (this.steps.has(k)) throw new Error(`two upcasters for ${u.type} v${u.fromVersion}`);
      this.steps.set(k, u);
      const to = this.target(u);
      this.current.set(to.type, Math.max(this.current.get(to.type) ?? 1, to.version));
    }
    return this;
  }

  /**
   * The types events may be stored under that read as one of `types` today: those types and every older type an
   * upcaster renames into one of them (a reader that filters stored rows by type asks for these).
   */
  storedTypesOf(types: readonly string[]): string[] {
    const out = new Set(types);
    for (let grew = true; grew;) {
      grew = false;
      for (const u of this.steps.values())
        if (out.has(this.target(u).type) && !out.has(u.type)) {
          out.add(u.type);
          grew = true;
        }
    }
    return [...out];
  }

  /** The schema version events of `type` are written with today. */
  currentVersion(type: string): number {
    return this.current.get(type) ?? 1;
  }

  upcast<E extends StoredEvent>(event: E): E {
    if (this.steps.size === 0) return event;
    let e: StoredEvent = event;
    for (let guard = 0; guard < 1000; guard++) {
      const step = this.steps.get(key(e.type, e.schemaVersion));
      if (!step) return e as E;
      const to = this.target(step);
      e = { ...e, type: to.type, schemaVersion: to.version, data: step.up(e.data, e) };
    }
    throw new Error(`upcasters of ${event.type} form a cycle`);
  }

  private target(u: Upcaster): { type: string; version: number } {
    const type = u.toType ?? u.type;
    return { type, version: u.toVersion ?? (type === u.type ? u.fromVersion + 1 : 1) };
  }
}

/** The registry the service's stores read through; a slice registers its upcasters next to its events. */
export const upcasters = new Upcasters();

/** Brings an event read from any store to today's shape (through the service's registry). */
export const upcast = <E extends StoredEvent>(event: E): E => upcasters.upcast(event);
