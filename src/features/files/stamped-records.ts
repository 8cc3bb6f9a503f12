/** Who made a record and when, and who changed it last. */
export interface Stamp {
  createdAt: string;
  createdBy: string;
  updatedAt: string;
  updatedBy: string;
}

type Records<T> = ReadonlyMap<string, T & Stamp>;

/**
 * Folds of a site's small record sets kept on one stream (transform presets, folders): each event gives a new Map
 * (states are immutable values), records stamped with their creation and last change.
 */
export const records = {
  created<T extends { id: string }>(s: Records<T>, record: T, by: string, at: string): Records<T> {
    return new Map(s).set(record.id, { ...record, createdAt: at, createdBy: by, updatedAt: at, updatedBy: by });
  },
  changed<T>(s: Records<T>, id: string, changes: Partial<T>, by: string, at: string): Records<T> {
    const old = s.get(id);
    return old ? new Map(s).set(id, { ...old, ...changes, updatedAt: at, updatedBy: by }) : s;
  },
  removed<T>(s: Records<T>, id: string): Records<T> {
    const next = new Map(s);
    next.delete(id);
    return next;
  },
};
