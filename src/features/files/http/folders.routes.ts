import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope, listEnvelope, NoContent } from '../../../kernel/http/envelope.ts';
import { checkCallerKey } from '../../../platform/http/caller-key.ts';
import { FILES_COLLECTION } from '../../../contracts/schema/system-collections.types.ts';
import { changeFolder, createFolder, deleteFolder, readFolders } from '../folder.commands.ts';
import type { FolderRecord } from '../folder.decider.ts';
import { FolderNotEmpty, FolderNotFound } from '../folder.errors.ts';
import { requireMedia } from '../media.guard.ts';

const FolderId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'a folder id');
const Name = z.string().trim().min(1).max(200).superRefine(checkCallerKey);
const CreateBody = z.object({ name: Name, parent: FolderId.nullable().default(null) }).strict();
const PatchBody = z.object({ name: Name, parent: FolderId.nullable() }).partial().strict();
const IdParams = z.object({ id: FolderId });
const FolderView = z
  .object({
    id: z.string(),
    name: z.string(),
    parent: z.string().nullable(),
    createdAt: z.string(),
    createdBy: z.string(),
    updatedAt: z.string(),
    updatedBy: z.string(),
  })
  .meta({ id: 'Folder' });
const view = (f: FolderRecord) => ({ ...f });
const tags = ['files'];

/**
 * Folders of a site's files, a simple tree (`parent` null at the top; names unique under a parent; no folder under
 * itself). A file names its folder in `folder`; a folder holding folders or files is not deleted.
 */
export const foldersRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const { authorizer, clock } = deps;
  const { items } = deps;

  app.get(
    '/api/v1/folders',
    {
      schema: {
        tags,
        summary: 'List the folders of the site',
        response: { 200: listEnvelope(FolderView, z.object({ total: z.number().int() })) },
      },
    },
    async (req) => {
      await requireMedia(authorizer, req, 'read');
      const folders = [...(await readFolders(deps, siteOf(req))).values()].sort((a, b) =>
        a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1,
      );
      return { data: folders.map(view), meta: { total: folders.length } };
    },
  );

  app.post(
    '/api/v1/folders',
    {
      schema: {
        tags,
        summary: 'Create a folder',
        body: CreateBody,
        response: { 201: dataEnvelope(FolderView, 'Created') },
      },
    },
    async (req, reply) => {
      await requireMedia(authorizer, req, 'create');
      const folder = await createFolder(deps, commandContext(req, clock), req.body);
      reply.status(201);
      return { data: view(folder) };
    },
  );

  app.patch(
    '/api/v1/folders/:id',
    {
      schema: {
        tags,
        summary: 'Rename or move a folder',
        params: IdParams,
        body: PatchBody,
        response: { 200: dataEnvelope(FolderView) },
      },
    },
    async (req) => {
      await requireMedia(authorizer, req, 'update');
      return { data: view(await changeFolder(deps, commandContext(req, clock), { id: req.params.id, ...req.body })) };
    },
  );

  app.delete(
    '/api/v1/folders/:id',
    { schema: { tags, summary: 'Delete an empty folder', params: IdParams, response: { 204: NoContent } } },
    async (req, reply) => {
      await requireMedia(authorizer, req, 'delete');
      const { id } = req.params;
      if (!(await readFolders(deps, siteOf(req))).has(id)) throw new FolderNotFound({ id });
      const s = await items.collection(req, FILES_COLLECTION, { system: true });
      const query = items.read.query({ filter: { folder: { _eq: id } }, limit: 1, fields: ['id'] });
      const inside = await items.read.list(req, s, query);
      if (inside.data.length) throw new FolderNotEmpty({ id });
      await deleteFolder(deps, commandContext(req, clock), id);
      return reply.status(204).send();
    },
  );
};
