import { defineError } from '../../kernel/http/errors.ts';

export const FolderNotFound = defineError<{ id: string }>(
  'NOT_FOUND',
  'not_found',
  (d) => `no folder ${d.id}`,
  () => ({ path: ['id'] }),
);

/** A folder (or a file) names a parent folder the site does not have. */
export const ParentFolderNotFound = defineError<{ id: string; at?: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `no folder ${d.id} on this site`,
  (d) => ({ path: ['body', d.at ?? 'parent'] }),
);

/** Names are unique among a folder's children. */
export const FolderNameTaken = defineError<{ name: string }>(
  'CONFLICT',
  'conflict',
  (d) => `a folder named ${JSON.stringify(d.name)} exists there already`,
  () => ({ path: ['body', 'name'] }),
);

/** A folder cannot move under itself. */
export const FolderCycle = defineError<{ id: string; parent: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `folder ${d.id} cannot move under ${d.parent}: that folder lies inside it`,
  () => ({ path: ['body', 'parent'] }),
);

/** A folder with folders inside is not deleted (move or delete them first). */
export const FolderHasChildren = defineError<{ id: string }>(
  'CONFLICT',
  'conflict',
  (d) => `folder ${d.id} holds folders; move or delete them first`,
  () => ({ path: ['id'] }),
);

/** A folder holding files is not deleted (move or delete them first). */
export const FolderNotEmpty = defineError<{ id: string }>(
  'CONFLICT',
  'conflict',
  (d) => `folder ${d.id} holds files; move or delete them first`,
  () => ({ path: ['id'] }),
);
