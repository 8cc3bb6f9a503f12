import type { DomainEvent } from '../../kernel/es/event.ts';

/** A folder of a site's files: a name under a parent (null: at the top). */
export interface Folder {
  id: string;
  name: string;
  parent: string | null;
}

export type FolderCreated = DomainEvent<'FolderCreated', Folder & { by: string; at: string }>;
export type FolderChanged = DomainEvent<
  'FolderChanged',
  { id: string; name?: string; parent?: string | null; by: string; at: string }
>;
export type FolderDeleted = DomainEvent<'FolderDeleted', { id: string; by: string; at: string }>;

export type FolderEvent = FolderCreated | FolderChanged | FolderDeleted;

/** A site's folders are one stream: the tree's shape (no cycles, names unique under a parent) is checked whole. */
export const foldersStream = (siteId: string) => `${siteId}/folders/${siteId}`;
